from mcpgen.cli import main

main()
