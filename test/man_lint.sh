#!/bin/sh
# mandoc -Tlint over every man page; warnings and errors fail the test.
if [ -z "$MANDOC" ]; then
    echo "mandoc not installed: skipping"
    exit 77
fi
status=0
for page in "$TOP_SRCDIR"/man/*.[0-9]; do
    "$MANDOC" -Tlint -Wwarning "$page" || status=1
done
exit $status
