"""What a player knows, shared by the families: hypothesis sets and certain knowledge, and the features networks read."""
