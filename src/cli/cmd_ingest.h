/*
 * Entry point of `inlet ingest` (cmd_ingest.c), built on include/inlet/ingest.h.
 */
#ifndef INLET_CMD_INGEST_H
#define INLET_CMD_INGEST_H

int cmd_ingest(int argc, char **argv);

#endif /* INLET_CMD_INGEST_H */
