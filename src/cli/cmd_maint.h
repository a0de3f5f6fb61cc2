/*
 * Entry points of the maintenance subcommands (cmd_compact.c,
 * cmd_vacuum.c, cmd_maintain.c), built on include/inlet/maint.h.
 * argv[0] is the subcommand's own name.
 */
#ifndef INLET_CMD_MAINT_H
#define INLET_CMD_MAINT_H

int cmd_compact(int argc, char **argv);
int cmd_vacuum(int argc, char **argv);
int cmd_maintain(int argc, char **argv);

#endif /* INLET_CMD_MAINT_H */
