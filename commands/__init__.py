"""The ``knapcheck`` command line: ``cli`` parses the arguments and hands them to one ``*_command`` module."""
