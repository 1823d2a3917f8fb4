/*
 * grow: an array's room grown by doubling, the one way every list here
 * grows (half a million splices or blocks, several million line rows): a
 * list grown an item or a function at a time copies itself over and over
 * and leaves the heap full of the sizes it outgrew.
 */
#ifndef GILK_GROW_H
#define GILK_GROW_H

#include <stddef.h>

/* Makes *arr (room for *room items of size bytes) hold at least need,
 * doubling from first (or from *room); 0, or -1 with *arr as it was. */
int grow_room(void **arr, size_t *room, size_t need, size_t size, size_t first);

#endif
