"""Numpy networks the families share: the multilayer perceptron and Adam, the table network, the average network."""
