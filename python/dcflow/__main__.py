from dcflow.cli import main

main()
