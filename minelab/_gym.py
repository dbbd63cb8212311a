"""The Gymnasium ids of minelab's environments, registered by name when minelab is
imported: `gymnasium.make("minelab/Minesweeper-v0")` works after `import minelab`, and
minelab.envs (the environments' code) is imported only when an environment is made."""
from __future__ import annotations

ENV_ID = "minelab/Minesweeper-v0"


def register() -> None:
    """Register ENV_ID (and its vector form) with Gymnasium, once."""
    import gymnasium

    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="minelab.envs:MinesweeperEnv",
                           vector_entry_point="minelab.envs:MinesweeperVectorEnv")
