import sys

from npusim.cli import main

sys.exit(main())
