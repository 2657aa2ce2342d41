"""The protocol core's private modules: the transport, the wire, sessions' calls and
streams, launching Chrome, profiles and endpoints, URLs read by the URL standard, secrets,
private files and the runtime folder (floor 1; ``lazy`` and ``keywords`` import nothing of
cdpkit). The public modules of this floor (``connection``, ``session``, ``launcher``,
``errors``) sit at cdpkit's root."""
