"""One module per paper: its task kinds, figure functions and run sizes."""
