"""Reports made by experiments: the evaluation tables and the sample reports."""
