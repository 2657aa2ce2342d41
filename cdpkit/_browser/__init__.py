"""What :class:`~cdpkit.Browser` and :class:`~cdpkit.Page` stand on (floor 2): starting a
browser (launch, connect, attach), navigation and its waits, parser-blocking scripts,
frames, the identity settings and the config file's reader, the settings applied to a page
and to cdpkit's own requests, storage, the pool and the grid."""
