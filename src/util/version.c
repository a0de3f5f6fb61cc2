/*
 * inlet_version(): the version this library was built as, compiled into it
 * (not read from the headers of the program that calls it).
 */
#include "inlet/version.h"

const char *inlet_version(void) {
  return INLET_VERSION_STRING;
}

int inlet_version_number(void) {
  return INLET_VERSION_NUMBER;
}
