from ctxkeep.cli.main import main

main()
