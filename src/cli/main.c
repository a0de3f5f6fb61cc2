/*
 * inlet command-line tool: dispatches to one cmd_<verb>.c per subcommand.
 * Uses only the public headers in include/inlet/.
 */
#include <stdio.h>
#include <string.h>

#include "inlet/inlet.h"

int main(int argc, char **argv) {
  if (argc >= 2 && (strcmp(argv[1], "--version") == 0)) {
    printf("inlet %s\n", INLET_VERSION_STRING);
    return 0;
  }
  fprintf(stderr, "usage: inlet <command> [args]\n");
  return 2;
}
