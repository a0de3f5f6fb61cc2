/*
 * `inlet help [COMMAND]` and `inlet help --man`: per-command help, and the
 * inlet(1) man page in roff generated from the same usage texts the
 * commands print for --help (so the two cannot drift apart).
 */
#ifndef INLET_CMD_HELP_H
#define INLET_CMD_HELP_H

/* argv[0] is "help"; @p overview is the top-level usage text. */
int cmd_help(int argc, char **argv, const char *overview);

#endif /* INLET_CMD_HELP_H */
