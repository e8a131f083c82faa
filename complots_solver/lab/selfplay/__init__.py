"""Experiments on table networks: the features' floor and the training targets, measured exactly on the ladder."""
