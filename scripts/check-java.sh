#!/bin/sh
# PySpark (the Spark offload of heavy merges) needs Java 17 or newer. Say so plainly if it is missing.
if ! command -v java >/dev/null 2>&1; then
  echo "flowcore: Java 17 or newer is required (PySpark runs on it) and no 'java' was found." >&2
  echo "  Install it, e.g. on Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless" >&2
  echo "  or on macOS: brew install openjdk@17; then run this command again." >&2
  exit 1
fi
version=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
if [ -z "$version" ] || [ "$version" -lt 17 ]; then
  echo "flowcore: Java 17 or newer is required (PySpark runs on it); found: $(java -version 2>&1 | head -n 1)" >&2
  echo "  Install it, e.g. on Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless" >&2
  exit 1
fi
