"""Stateful SSH simulators of Dell OS10 and Arista EOS for the dlcluster lab (see __main__)."""
