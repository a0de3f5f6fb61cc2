/*
 * Common definitions shared by every public inlet header: the export macro
 * that keeps the shared library's symbol table to the public API, and the
 * standard includes every header needs.
 */
#ifndef INLET_COMMON_H
#define INLET_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(INLET_STATIC)
#define INLET_API
#elif defined(INLET_BUILDING_LIBRARY) && defined(__GNUC__)
#define INLET_API __attribute__((visibility("default")))
#else
#define INLET_API
#endif

#endif /* INLET_COMMON_H */
