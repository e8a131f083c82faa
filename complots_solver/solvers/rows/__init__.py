"""Many games stepped side by side in numba: batched game rows, and a table network playing on them."""
