"""Studies across papers: work that compares agents of several papers (the leaderboard).

A study is built like a paper module (figure functions, run sizes, a notebook) but
reproduces no single publication; like a paper it imports the shared layers (agents,
sweep, tasks, report) and never a paper module.
"""
