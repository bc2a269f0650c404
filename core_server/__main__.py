"""`python -m core_server`."""

from core_server.main import main

main()
