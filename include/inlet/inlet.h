/*
 * inlet: a Delta Lake table engine for event streams. Umbrella header.
 */
#ifndef INLET_INLET_H
#define INLET_INLET_H

#include "inlet/common.h"
#include "inlet/version.h"
#include "inlet/error.h"
#include "inlet/batch.h"
#include "inlet/parquet.h"
#include "inlet/storage.h"
#include "inlet/table.h"
#include "inlet/text.h"
#include "inlet/ingest.h"
#include "inlet/maint.h"
#include "inlet/delete.h"
#include "inlet/scan.h"
#include "inlet/changes.h"
#include "inlet/arrow.h"

#endif /* INLET_INLET_H */
