/* "Did you mean": the known word closest to a mistyped one (Levenshtein
 * distance over one row, ASCII case ignored). */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "common/closest.h"

#define CLOSEST_MAX_LEN 64

static size_t
distance (const char *a, const char *b)
{
  size_t la = strlen (a), lb = strlen (b), row[CLOSEST_MAX_LEN + 1];

  if (la > CLOSEST_MAX_LEN || lb > CLOSEST_MAX_LEN)
    return SIZE_MAX;
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++)
    {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= lb; j++)
        {
          size_t up = row[j];
          size_t cost = (a[i - 1] | 0x20) != (b[j - 1] | 0x20);
          size_t best = diag + cost;
          if (up + 1 < best)
            best = up + 1;
          if (row[j - 1] + 1 < best)
            best = row[j - 1] + 1;
          row[j] = best;
          diag = up;
        }
    }
  return row[lb];
}

const char *
closest_word (const char *word, const char *const *candidates, size_t max)
{
  const char *best = NULL;
  size_t best_d = max + 1;

  if (word == NULL || candidates == NULL)
    return NULL;
  for (size_t i = 0; candidates[i]; i++)
    {
      size_t d = distance (word, candidates[i]);
      if (d < best_d)
        {
          best_d = d;
          best = candidates[i];
        }
    }
  return best;
}
