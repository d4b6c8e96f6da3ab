/* Unit tests of the state documents: corrupt state.json records are refused
 * with a clear error, good ones round-trip, and the runtime-spec state is
 * exactly what runc prints (shape, order, indentation). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "oci/state.h"
#include "unit.h"

static const char good[]
    = "{\"version\":1,\"id\":\"c1\",\"bundle\":\"/b\",\"rootfs\":\"/b/rootfs\",\"pid\":42,"
      "\"created\":\"2024-05-01T10:00:00.123456789Z\"}";

static char *
state_error (const char *json)
{
  agentrt_error_t err = NULL;
  struct container_state *s = container_state_parse (json, strlen (json), &err);
  char *msg;

  if (s)
    {
      container_state_free (s);
      return NULL;
    }
  msg = strdup (err->msg);
  agentrt_error_release (&err);
  return msg;
}

#define CHECK_STATE_ERROR(json, expected)                                     \
  do                                                                          \
    {                                                                         \
      char *msg_ = state_error (json);                                        \
      CHECK_STR_EQ (msg_, expected);                                          \
      free (msg_);                                                            \
    }                                                                         \
  while (0)

static void
test_corrupt (void)
{
  char truncated[sizeof good];

  CHECK_STATE_ERROR ("", "state.json: parse error: premature EOF at byte 0");
  memcpy (truncated, good, 40);
  truncated[40] = '\0';
  CHECK_STATE_ERROR (truncated, "state.json: parse error: premature EOF at byte 40");
  CHECK_STATE_ERROR ("\0\0\0\0", "state.json: parse error: premature EOF at byte 0");
  CHECK_STATE_ERROR ("[1]", "state.json: expected an object");
  CHECK_STATE_ERROR ("{}", "state.json: version: missing required field");
  CHECK_STATE_ERROR ("{\"version\":2}",
                     "state.json: version: unsupported state format 2 (this agentrt writes 1)");
  CHECK_STATE_ERROR ("{\"version\":1,\"bundle\":\"/b\"}", "state.json: id: missing required field");
  CHECK_STATE_ERROR ("{\"version\":1,\"id\":\"\",\"bundle\":\"/b\",\"rootfs\":\"/r\",\"pid\":1,"
                     "\"created\":\"x\"}",
                     "state.json: id: must not be empty");
  CHECK_STATE_ERROR ("{\"version\":1,\"id\":\"c\",\"bundle\":\"b\",\"rootfs\":\"/r\",\"pid\":1,"
                     "\"created\":\"x\"}",
                     "state.json: bundle: must be an absolute path");
  CHECK_STATE_ERROR ("{\"version\":1,\"id\":\"c\",\"bundle\":\"/b\",\"rootfs\":\"/r\",\"pid\":-1,"
                     "\"created\":\"x\"}",
                     "state.json: pid: must not be negative");
  CHECK_STATE_ERROR ("{\"version\":1,\"id\":\"c\",\"bundle\":\"/b\",\"rootfs\":\"/r\",\"pid\":1e9,"
                     "\"created\":\"x\"}",
                     "state.json: pid: expected an integer");
  CHECK_STATE_ERROR ("{\"version\":1,\"id\":\"c\",\"bundle\":\"/b\",\"rootfs\":\"/r\",\"pid\":1}",
                     "state.json: created: missing required field");
  CHECK_STATE_ERROR ("{\"version\":1,\"id\":\"c\",\"bundle\":\"/b\",\"rootfs\":\"/r\",\"pid\":1,"
                     "\"created\":\"x\",\"monitorPid\":\"12\"}",
                     "state.json: monitorPid: expected an integer");
  CHECK_STATE_ERROR ("{\"version\":1,\"id\":\"c\",\"bundle\":\"/b\",\"rootfs\":\"/r\",\"pid\":1,"
                     "\"created\":\"x\",\"annotations\":{\"a\":1}}",
                     "state.json: annotations.a: expected a string");
}

static void
test_round_trip (void)
{
  struct container_state s = {
    .id = "agent-1", .bundle = "/srv/bundles/agent-1", .rootfs = "/srv/bundles/agent-1/rootfs",
    .pid = 4242, .pid_start = 123456789012ULL, .created = "2024-05-01T10:00:00.123456789Z",
    .owner = "", .cgroup_path = "/agentrt/agent-1", .systemd_unit = "agentrt-agent-1.scope",
    .cgroup_owned = true, .cgroup_pending = true, .monitor_pid = 4240, .monitor_start = 99, .monitor_is_run = true,
  };
  struct kv kv[] = { { "run.agentrt.egress", "proxy" }, { "k", "v\n\"" } };
  agentrt_error_t err = NULL;
  struct container_state *back;
  char *json, *again;

  s.annotations.items = kv;
  s.annotations.len = 2;
  json = container_state_to_json (&s, &err);
  CHECK (json != NULL);
  back = json ? container_state_parse (json, strlen (json), &err) : NULL;
  CHECK (back != NULL);
  if (back == NULL)
    {
      free (json);
      return;
    }
  CHECK_STR_EQ (back->id, "agent-1");
  CHECK (back->pid == 4242 && back->pid_start == 123456789012ULL);
  CHECK (back->monitor_pid == 4240 && back->monitor_start == 99);
  CHECK (back->monitor_is_run);
  CHECK (back->cgroup_owned && back->cgroup_pending);
  CHECK_STR_EQ (back->systemd_unit, "agentrt-agent-1.scope");
  CHECK_STR_EQ (kv_list_get (&back->annotations, "k"), "v\n\"");
  again = container_state_to_json (back, &err);
  CHECK_STR_EQ (again, json);
  free (again);
  free (json);
  container_state_free (back);

  /* Optional members default; owner becomes "". */
  back = container_state_parse (good, strlen (good), &err);
  CHECK (back && back->pid == 42 && back->monitor_pid == 0 && back->cgroup_path == NULL
         && !back->cgroup_pending);
  CHECK_STR_EQ (back ? back->owner : NULL, "");
  container_state_free (back);

  s.id = NULL;
  CHECK (container_state_to_json (&s, &err) == NULL);
  CHECK_CONTAINS (err ? err->msg : NULL, "cannot write state.json");
  agentrt_error_release (&err);
}

static void
test_oci_state (void)
{
  struct container_state s = {
    .id = "c1", .bundle = "/b", .rootfs = "/b/rootfs", .pid = 42,
    .created = "2024-05-01T10:00:00.123456789Z", .owner = "",
  };
  struct kv kv[] = { { "a", "1" } };
  struct container_state *list[2] = { &s, &s };
  enum container_status statuses[2] = { STATUS_RUNNING, STATUS_STOPPED };
  agentrt_error_t err = NULL;
  char *json;

  json = container_state_oci_json (&s, STATUS_RUNNING, true, &err);
  CHECK_STR_EQ (json, "{\n"
                      "  \"ociVersion\": \"1.2.0\",\n"
                      "  \"id\": \"c1\",\n"
                      "  \"pid\": 42,\n"
                      "  \"status\": \"running\",\n"
                      "  \"bundle\": \"/b\",\n"
                      "  \"rootfs\": \"/b/rootfs\",\n"
                      "  \"created\": \"2024-05-01T10:00:00.123456789Z\",\n"
                      "  \"owner\": \"\"\n"
                      "}");
  free (json);
  s.annotations.items = kv;
  s.annotations.len = 1;
  json = container_state_oci_json (&s, STATUS_STOPPED, false, &err);
  CHECK_STR_EQ (json, "{\"ociVersion\":\"1.2.0\",\"id\":\"c1\",\"pid\":0,\"status\":\"stopped\","
                      "\"bundle\":\"/b\",\"rootfs\":\"/b/rootfs\","
                      "\"created\":\"2024-05-01T10:00:00.123456789Z\","
                      "\"annotations\":{\"a\":\"1\"},\"owner\":\"\"}");
  free (json);
  json = container_state_list_json (list, statuses, 2, &err);
  CHECK (json && json[0] == '[' && strstr (json, "\"pid\":42,\"status\":\"running\"")
         && strstr (json, "},{\"ociVersion\"") && strstr (json, "\"pid\":0,\"status\":\"stopped\""));
  free (json);
  json = container_state_list_json (NULL, NULL, 0, &err);
  CHECK_STR_EQ (json, "null");
  free (json);
  CHECK_STR_EQ (container_status_name (STATUS_CREATING), "creating");
  CHECK_STR_EQ (container_status_name (STATUS_PAUSED), "paused");
  CHECK_STR_EQ (container_status_name ((enum container_status) 99), "unknown");
}

int
main (void)
{
  RUN_TEST (test_corrupt);
  RUN_TEST (test_round_trip);
  RUN_TEST (test_oci_state);
  return UNIT_EXIT ();
}
