import sys

from verification.cli import main

if __name__ == "__main__":
    sys.exit(main())
