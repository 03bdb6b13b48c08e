from aimate_memory.cli import main

main()
