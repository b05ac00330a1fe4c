"""The job as a script, for spark-submit (which puts this file's directory,
and so the package beside it, on the driver's path):

    spark-submit --packages ... lake/src/cdc_kafka_lake_main.py run --bootstrap-servers ...
"""

import sys

from cdc_kafka_lake.cli import main

if __name__ == "__main__":
    sys.exit(main())
