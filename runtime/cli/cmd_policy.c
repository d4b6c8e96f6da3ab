/* `agentrt policy explain [--bundle DIR] [--format text|json]`: what the
 * hardening would do to a bundle under the admin policy (--policy, else
 * /etc/agentrt/policy.json, else the built-in defaults): every change, the
 * directives, and the effective config.  Needs no root and starts nothing. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "oci/json_writer.h"
#include "runtime/cli/commands.h"
#include "runtime/hardening.h"

static void
print_text (const char *bundle, const struct hardening *h, const char *config)
{
  printf ("bundle: %s\n", bundle);
  if (!h->enforced)
    printf ("hardening: off (the admin policy says \"hardening\": \"off\")\n");
  else
    {
      cleanup_free char *changes = change_list_to_text (&h->result.changes);
      struct json_writer *w = json_writer_new_indent ("  ");
      cleanup_free char *directives = NULL;
      harden_directives_write_json (&h->result.directives, w);
      directives = json_writer_finish (w, NULL);
      printf ("changes:\n%s", changes);
      printf ("directives:\n%s\n", directives);
    }
  printf ("effective config:\n%s\n", config);
}

static void
print_json (const char *bundle, const struct hardening *h, const char *config)
{
  struct json_writer *w = json_writer_new_indent ("  ");
  char *out;

  json_begin_object (w);
  json_kv_string (w, "bundle", bundle);
  json_kv_bool (w, "hardened", h->enforced);
  if (h->enforced)
    {
      json_key (w, "directives");
      harden_directives_write_json (&h->result.directives, w);
      json_key (w, "changes");
      change_list_write_json (&h->result.changes, w);
    }
  json_key (w, "config");
  json_raw (w, config);
  json_end_object (w);
  out = json_writer_finish (w, NULL);
  printf ("%s\n", out);
  free (out);
}

static int
explain (struct global_options *g, const char *bundle_arg, bool json,
         agentrt_error_t *err)
{
  cleanup_free char *bundle = realpath (bundle_arg, NULL);
  cleanup_free char *path = NULL;
  cleanup_free char *config_json = NULL;
  cleanup_oci_config struct oci_config *config = NULL;
  struct hardening h;

  if (bundle == NULL)
    return agentrt_error (err, errno, "--bundle `%s`", bundle_arg);
  path = xasprintf ("%s/config.json", bundle);
  config = oci_config_parse_file (path, err);
  if (config == NULL)
    return -1;
  if (hardening_apply (&g->rt, config, bundle, false, &h, err) < 0)
    {
      hardening_release (&h);
      return -1;
    }
  config_json = oci_config_to_json (config, false, err);
  if (config_json == NULL)
    {
      hardening_release (&h);
      return -1;
    }
  if (json)
    print_json (bundle, &h, config_json);
  else
    {
      free (config_json);
      config_json = oci_config_to_json_indent (config, "  ", err);
      print_text (bundle, &h, config_json ? config_json : "");
    }
  hardening_release (&h);
  return 0;
}

int
cmd_policy (struct global_options *g, int argc, char **argv,
            agentrt_error_t *err)
{
  static const struct option opts[] = {
    { "bundle", required_argument, NULL, 'b' },
    { "format", required_argument, NULL, 'f' },
    { NULL, 0, NULL, 0 },
  };
  const char *bundle = ".", *format = "text";
  int c;

  if (argc < 2 || strcmp (argv[1], "explain") != 0)
    return agentrt_error (err, 0, "usage: agentrt policy explain "
                          "[--bundle DIR] [--format text|json]");
  opterr = 0;
  optind = 0;
  while ((c = getopt_long_only (argc - 1, argv + 1, "+:b:f:", opts, NULL)) != -1)
    {
      if (c == 'b')
        bundle = optarg;
      else if (c == 'f')
        format = optarg;
      else
        return cmd_option_error (argv + 1, c, err);
    }
  if (strcmp (format, "text") && strcmp (format, "json"))
    return agentrt_error (err, 0, "policy explain: invalid format `%s`",
                          format);
  if (cmd_check_args (argc - 1, optind, 0, 0, "policy explain [--bundle DIR] "
                      "[--format text|json]", err) < 0)
    return -1;
  return explain (g, bundle, strcmp (format, "json") == 0, err) < 0 ? -1 : 0;
}
