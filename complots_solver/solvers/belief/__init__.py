"""Public-belief solving: exact hypothesis sets over hidden states, vector-form CFR on public trees.

A *hypothesis* is one full rules state together with each player's private
state id; a *public node* holds every hypothesis consistent with the public
history, with its probability. Solvers here work on public trees whose nodes
carry those sets, so private information is handled exactly while the
public history is walked once (``docs/lab/2026-full-game-journal.md``).
"""
