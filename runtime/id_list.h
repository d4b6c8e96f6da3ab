/* Lists of CPU or NUMA node numbers in the kernel's list format ("0-3,7"),
 * as runtime-spec fields give them (process.execCPUAffinity,
 * linux.memoryPolicy.nodes), into a bitmap.  Pure: no allocation, no I/O. */
#ifndef AGENTRT_ID_LIST_H
#define AGENTRT_ID_LIST_H

#include <stddef.h>

#define ID_LIST_WORD_BITS (8 * sizeof (unsigned long))

/* Clears bits (nbits of them, a multiple of ID_LIST_WORD_BITS) and sets one
 * per number of the list: comma-separated numbers or ranges "a-b" (a <= b),
 * decimal digits only, no empty element; "" is the empty list.  Returns 0,
 * -EINVAL for a malformed list, -ERANGE for a number >= nbits (*too_big,
 * when not NULL, receives it). */
int id_list_parse (const char *list, unsigned long *bits, size_t nbits,
                   unsigned long *too_big);

/* Whether bit i is set. */
static inline int
id_list_has (const unsigned long *bits, size_t i)
{
  return (bits[i / ID_LIST_WORD_BITS] >> (i % ID_LIST_WORD_BITS)) & 1;
}

#endif
