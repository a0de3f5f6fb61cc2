/*
 * Entry points of the table subcommands (cmd_create.c, cmd_append.c,
 * cmd_scan.c, cmd_history.c, cmd_describe.c, cmd_checkpoint.c), built on
 * include/inlet/table.h. argv[0] is the subcommand's own name.
 */
#ifndef INLET_CMD_TABLE_H
#define INLET_CMD_TABLE_H

int cmd_create(int argc, char **argv);
int cmd_append(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_describe(int argc, char **argv);
int cmd_checkpoint(int argc, char **argv);

#endif /* INLET_CMD_TABLE_H */
