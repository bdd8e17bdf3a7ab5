"""Allow ``python -m judgepool``."""

from judgepool.cli import main

if __name__ == "__main__":
    main()
