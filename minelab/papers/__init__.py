"""One module per paper: its figure and table functions (each named after the figure it
makes, run sizes as keyword defaults), its paper-specific task kinds and its run sizes.

A paper module imports the layers below it (agents, runner, sweep, tasks, report) and
never another paper: what two papers share lives in `minelab.tasks`. Each function
returns a `minelab.report.PaperResult`; its notebook saves it with `report.publish`.
`data/published/items.csv` names, for every figure and table, the notebook and the
function that make it.
"""
