/* RFC 3339 timestamps (see timestamp.h).  Days to and from civil dates
 * with H. Hinnant's algorithms: no gmtime, no time zone file. */
#include "config.h"

#include <stdio.h>

#include "common/timestamp.h"

/* n decimal digits at s (all digits, else -1). */
static int
digits (const char *s, int n)
{
  int v = 0;

  for (int i = 0; i < n; i++)
    {
      if (s[i] < '0' || s[i] > '9')
        return -1;
      v = v * 10 + (s[i] - '0');
    }
  return v;
}

static bool
leap (int y)
{
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int
month_days (int y, int m)
{
  static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
  return m == 2 && leap (y) ? 29 : days[m - 1];
}

static int64_t
days_from_civil (int64_t y, int m, int d)
{
  int64_t era, yoe, doy, doe;

  y -= m <= 2;
  era = (y >= 0 ? y : y - 399) / 400;
  yoe = y - era * 400;
  doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/* The date at s (10 bytes) as days since the epoch; -1 when invalid. */
static int
parse_date (const char *s, int64_t *days)
{
  int y = digits (s, 4), m, d;

  if (y < 0 || s[4] != '-' || s[7] != '-')
    return -1;
  m = digits (s + 5, 2);
  d = digits (s + 8, 2);
  if (m < 1 || m > 12 || d < 1 || d > month_days (y, m))
    return -1;
  *days = days_from_civil (y, m, d);
  return 0;
}

/* The zone at s: Z, or +HH:MM / -HH:MM as seconds east of UTC; the
 * string must end there. */
static int
parse_zone (const char *s, int64_t *offset)
{
  int h, m;

  if ((s[0] == 'Z' || s[0] == 'z') && s[1] == '\0')
    {
      *offset = 0;
      return 0;
    }
  if (s[0] != '+' && s[0] != '-')
    return -1;
  h = digits (s + 1, 2);
  if (h < 0 || s[3] != ':')
    return -1;
  m = digits (s + 4, 2);
  if (h > 23 || m < 0 || m > 59 || s[6] != '\0')
    return -1;
  *offset = (s[0] == '-' ? -1 : 1) * (int64_t) (h * 3600 + m * 60);
  return 0;
}

int
timestamp_parse (const char *s, bool date_only, int64_t *us)
{
  int64_t days, offset, frac = 0, scale = 100000;
  int h, mi, se;
  const char *p;

  for (p = s; p - s < 10; p++)
    if (*p == '\0')
      return -1;
  if (parse_date (s, &days) < 0)
    return -1;
  if (s[10] == '\0' && date_only)
    {
      *us = days * 86400 * 1000000;
      return 0;
    }
  if (s[10] != 'T' && s[10] != 't')
    return -1;
  h = digits (s + 11, 2);
  if (h < 0 || s[13] != ':')
    return -1;
  mi = digits (s + 14, 2);
  if (mi < 0 || s[16] != ':')
    return -1;
  se = digits (s + 17, 2);
  if (h > 23 || mi > 59 || se < 0 || se > 60)
    return -1;
  if (se == 60)
    se = 59;
  p = s + 19;
  if (*p == '.')
    {
      int n = 0;
      for (p++; *p >= '0' && *p <= '9'; p++, n++)
        {
          if (n < 6)
            frac += (*p - '0') * scale;
          scale /= 10;
        }
      if (n < 1 || n > 9)
        return -1;
    }
  if (parse_zone (p, &offset) < 0)
    return -1;
  *us = ((days * 86400 + h * 3600 + mi * 60 + se) - offset) * 1000000 + frac;
  return 0;
}

const char *
timestamp_format (int64_t us, int digits, char buf[TIMESTAMP_STR_LEN])
{
  int64_t secs = us >= 0 ? us / 1000000 : (us - 999999) / 1000000;
  int64_t frac = us - secs * 1000000;
  int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
  int64_t rem = secs - days * 86400, z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097, doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
  int64_t y = yoe + era * 400 + (m <= 2);
  int n;

  n = snprintf (buf, TIMESTAMP_STR_LEN, "%04d-%02d-%02dT%02d:%02d:%02d",
                (int) y, (int) m, (int) d, (int) (rem / 3600),
                (int) (rem / 60 % 60), (int) (rem % 60));
  if (digits > 6)
    digits = 6;
  if (digits > 0)
    {
      for (int i = digits; i < 6; i++)
        frac /= 10;
      n += snprintf (buf + n, TIMESTAMP_STR_LEN - (size_t) n, ".%0*d", digits,
                     (int) frac);
    }
  snprintf (buf + n, TIMESTAMP_STR_LEN - (size_t) n, "Z");
  return buf;
}
