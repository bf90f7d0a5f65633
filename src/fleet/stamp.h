/*
 * stamp.h: the annotation the fleet's writes carry besides the written-at
 * stamp (SCAN_WRITTEN_AT, scan.h), shared by the writer's templates
 * (writer.c) and the churn's Pod JSON (churn.c), so that neither includes
 * the other.
 */
#ifndef FLEET_STAMP_H
#define FLEET_STAMP_H

/* This object's write number, as a decimal string: every write changes
 * the value even when the written-at stamp would not. */
#define STAMP_WRITE_COUNT "ringwatch.io/write-count"

#endif
