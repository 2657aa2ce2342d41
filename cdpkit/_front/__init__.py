"""The front ends' floor (floor 4): the options table, "options -> running browser", the
errors worded once for every program, the protocol's names for the front ends."""
