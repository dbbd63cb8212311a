"""notebooks/tour.ipynb runs at the smoke profile, and exported to HTML with nbconvert (no
widget state saved, as papermill leaves it) every board viewer still shows as a static
picture, offline."""
import json
from pathlib import Path

import nbformat
import papermill as pm
import pytest
from nbconvert import HTMLExporter

REPO = Path(__file__).resolve().parent.parent
TOUR = REPO / "notebooks" / "tour.ipynb"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    out = tmp_path_factory.mktemp("tour") / "tour.ipynb"
    # as `minelab reproduce` runs notebooks: no widget state stored (JupyterLab's default when saving, too)
    pm.execute_notebook(str(TOUR), str(out), parameters={"profile": "smoke"}, cwd=str(REPO), kernel_name="python3",
                        progress_bar=False, store_widget_state=False)
    return nbformat.read(out, as_version=4)


def _texts(nb):
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            yield o.get("text", "") + json.dumps(o.get("data", {}))


def test_tour_runs_and_states_numbers_from_code(executed):
    text = "\n".join(_texts(executed))
    assert "Traceback" not in text and "Error" not in text.replace("ErrorCount", "")
    assert "the same as the run's record" in text  # section 5: the replayed game is the run's game
    assert "greedy-mab trained on 50 games" in text  # the smoke profile's size, printed by code
    assert "minelab reproduce --only lordeiro2021_bandits" in text  # section 7's table of notebooks


def test_tour_viewers_export_as_static_pictures(executed):
    html, _ = HTMLExporter().from_notebook_node(executed)
    pictures = html.count('class="minelab-board-html"')
    assert pictures >= 7, "the board viewers have no static fallback in the exported page"  # 4 viewers + a row of 3
    assert "<svg" in html
    assert "application/vnd.jupyter.widget-view+json" not in html  # nothing that needs a widget manager


def test_readme_links_the_tour_first():
    readme = (REPO / "README.md").read_text()
    first_notebook = readme.index(".ipynb")
    assert readme[max(0, first_notebook - 40):first_notebook].endswith("notebooks/tour")
