"""Lower bounds on a fixed strategy's exploitability: a local best response and a trained one.

Both responders play real games against the strategy; the mean return of a
responder is a lower bound on the best response's value, however good or
bad the responder is. See :mod:`.lbr` and :mod:`.trained`.
"""
