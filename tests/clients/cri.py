#!/usr/bin/python3
"""tests/clients/cri.py: the smallest CRI client the tests need (crictl is
not packaged in Debian 12).  It speaks runtime.v1 over gRPC to a CRI socket
(containerd's CRI plugin), with the few messages it uses declared here
through protobuf's descriptor API: no generated code, no downloads.  Field
names and numbers follow k8s.io/cri-api runtime/v1/api.proto; enums are
plain integers (ContainerState: 0 created, 1 running, 2 exited, 3 unknown;
PodSandboxState: 0 ready, 1 not ready).

    cri.py -s SOCKET version
    cri.py -s SOCKET image REF                  image id, exit 1 if absent
    cri.py -s SOCKET runp POD.json [HANDLER]    pod sandbox id
    cri.py -s SOCKET create POD-ID CTR.json POD.json
    cri.py -s SOCKET start|rm ID
    cri.py -s SOCKET stop ID [TIMEOUT]
    cri.py -s SOCKET stopp|rmp POD-ID
    cri.py -s SOCKET inspect ID | inspectp POD-ID   status as JSON
    cri.py -s SOCKET exec ID TIMEOUT CMD...     ExecSync: its stdout and
                                                stderr, exits with its code
    cri.py -s SOCKET ps | pods                  ids, one a line

POD.json and CTR.json are PodSandboxConfig and ContainerConfig in the
protobuf JSON mapping (field names as in the .proto).  A gRPC error is
printed as `cri: CODE: DETAILS` with exit status 2.
"""

import json
import sys

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, json_format
from google.protobuf import message_factory

S, I32, I64, U32, BOOL, BYTES = "string", "int32", "int64", "uint32", "bool", "bytes"

# message: [(field, number, type, repeated)]; a type that is not a scalar
# names another message; ("map", ...) is a map<string, string>.
MESSAGES = {
    "VersionRequest": [("version", 1, S)],
    "VersionResponse": [("version", 1, S), ("runtime_name", 2, S),
                        ("runtime_version", 3, S),
                        ("runtime_api_version", 4, S)],
    "KeyValue": [("key", 1, S), ("value", 2, S)],
    "Int64Value": [("value", 1, I64)],
    "NamespaceOption": [("network", 1, I32), ("pid", 2, I32),
                        ("ipc", 3, I32), ("target_id", 4, S)],
    "LinuxSandboxSecurityContext": [
        ("namespace_options", 1, "NamespaceOption"),
        ("run_as_user", 3, "Int64Value"), ("readonly_rootfs", 4, BOOL),
        ("privileged", 6, BOOL)],
    "LinuxContainerResources": [
        ("cpu_period", 1, I64), ("cpu_quota", 2, I64), ("cpu_shares", 3, I64),
        ("memory_limit_in_bytes", 4, I64), ("oom_score_adj", 5, I64),
        ("cpuset_cpus", 6, S), ("cpuset_mems", 7, S)],
    "LinuxPodSandboxConfig": [
        ("cgroup_parent", 1, S),
        ("security_context", 2, "LinuxSandboxSecurityContext"),
        ("sysctls", 3, "map"), ("overhead", 4, "LinuxContainerResources"),
        ("resources", 5, "LinuxContainerResources")],
    "PodSandboxMetadata": [("name", 1, S), ("uid", 2, S), ("namespace", 3, S),
                           ("attempt", 4, U32)],
    "DNSConfig": [("servers", 1, S, True), ("searches", 2, S, True),
                  ("options", 3, S, True)],
    "PodSandboxConfig": [
        ("metadata", 1, "PodSandboxMetadata"), ("hostname", 2, S),
        ("log_directory", 3, S), ("dns_config", 4, "DNSConfig"),
        ("labels", 6, "map"), ("annotations", 7, "map"),
        ("linux", 8, "LinuxPodSandboxConfig")],
    "RunPodSandboxRequest": [("config", 1, "PodSandboxConfig"),
                             ("runtime_handler", 2, S)],
    "RunPodSandboxResponse": [("pod_sandbox_id", 1, S)],
    "PodSandboxIdRequest": [("pod_sandbox_id", 1, S)],
    "PodSandboxStatusRequest": [("pod_sandbox_id", 1, S), ("verbose", 2, BOOL)],
    "PodSandboxNetworkStatus": [("ip", 1, S)],
    "PodSandboxStatus": [
        ("id", 1, S), ("metadata", 2, "PodSandboxMetadata"), ("state", 3, I32),
        ("created_at", 4, I64), ("network", 5, "PodSandboxNetworkStatus"),
        ("labels", 7, "map"), ("annotations", 8, "map"),
        ("runtime_handler", 9, S)],
    "PodSandboxStatusResponse": [("status", 1, "PodSandboxStatus"),
                                 ("info", 2, "map")],
    "PodSandbox": [("id", 1, S), ("state", 3, I32)],
    "ListPodSandboxRequest": [],
    "ListPodSandboxResponse": [("items", 1, "PodSandbox", True)],
    "ImageSpec": [("image", 1, S), ("annotations", 2, "map")],
    "Mount": [("container_path", 1, S), ("host_path", 2, S),
              ("readonly", 3, BOOL)],
    "ContainerMetadata": [("name", 1, S), ("attempt", 2, U32)],
    "Capability": [("add_capabilities", 1, S, True),
                   ("drop_capabilities", 2, S, True)],
    "LinuxContainerSecurityContext": [
        ("capabilities", 1, "Capability"), ("privileged", 2, BOOL),
        ("namespace_options", 3, "NamespaceOption"),
        ("run_as_user", 5, "Int64Value"), ("readonly_rootfs", 7, BOOL),
        ("no_new_privs", 11, BOOL)],
    "LinuxContainerConfig": [
        ("resources", 1, "LinuxContainerResources"),
        ("security_context", 2, "LinuxContainerSecurityContext")],
    "ContainerConfig": [
        ("metadata", 1, "ContainerMetadata"), ("image", 2, "ImageSpec"),
        ("command", 3, S, True), ("args", 4, S, True), ("working_dir", 5, S),
        ("envs", 6, "KeyValue", True), ("mounts", 7, "Mount", True),
        ("labels", 9, "map"), ("annotations", 10, "map"), ("log_path", 11, S),
        ("stdin", 12, BOOL), ("stdin_once", 13, BOOL), ("tty", 14, BOOL),
        ("linux", 15, "LinuxContainerConfig")],
    "CreateContainerRequest": [("pod_sandbox_id", 1, S),
                               ("config", 2, "ContainerConfig"),
                               ("sandbox_config", 3, "PodSandboxConfig")],
    "CreateContainerResponse": [("container_id", 1, S)],
    "ContainerIdRequest": [("container_id", 1, S)],
    "StopContainerRequest": [("container_id", 1, S), ("timeout", 2, I64)],
    "ContainerStatusRequest": [("container_id", 1, S), ("verbose", 2, BOOL)],
    "ContainerStatus": [
        ("id", 1, S), ("metadata", 2, "ContainerMetadata"), ("state", 3, I32),
        ("created_at", 4, I64), ("started_at", 5, I64),
        ("finished_at", 6, I64), ("exit_code", 7, I32),
        ("image", 8, "ImageSpec"), ("image_ref", 9, S), ("reason", 10, S),
        ("message", 11, S), ("labels", 12, "map"), ("annotations", 13, "map"),
        ("log_path", 15, S)],
    "ContainerStatusResponse": [("status", 1, "ContainerStatus"),
                                ("info", 2, "map")],
    "Container": [("id", 1, S), ("pod_sandbox_id", 2, S), ("state", 6, I32)],
    "ListContainersRequest": [],
    "ListContainersResponse": [("containers", 1, "Container", True)],
    "ExecSyncRequest": [("container_id", 1, S), ("cmd", 2, S, True),
                        ("timeout", 3, I64)],
    "ExecSyncResponse": [("stdout", 1, BYTES), ("stderr", 2, BYTES),
                         ("exit_code", 3, I32)],
    "ImageStatusRequest": [("image", 1, "ImageSpec"), ("verbose", 2, BOOL)],
    "Image": [("id", 1, S), ("repo_tags", 2, S, True)],
    "ImageStatusResponse": [("image", 1, "Image"), ("info", 2, "map")],
    "Empty": [],
}

PACKAGE = "runtime.v1"
F = descriptor_pb2.FieldDescriptorProto
SCALARS = {S: F.TYPE_STRING, I32: F.TYPE_INT32, I64: F.TYPE_INT64,
           U32: F.TYPE_UINT32, BOOL: F.TYPE_BOOL, BYTES: F.TYPE_BYTES}


def _add_field(msg, name, number, ftype, repeated):
    f = msg.field.add(name=name, number=number, json_name=name)
    f.label = F.LABEL_REPEATED if repeated else F.LABEL_OPTIONAL
    if ftype == "map":
        entry = msg.nested_type.add(name=name.title().replace("_", "") + "Entry")
        entry.options.map_entry = True
        for n, num in (("key", 1), ("value", 2)):
            entry.field.add(name=n, number=num, json_name=n,
                            type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
        f.label = F.LABEL_REPEATED
        f.type = F.TYPE_MESSAGE
        f.type_name = ".%s.%s.%s" % (PACKAGE, msg.name, entry.name)
    elif ftype in SCALARS:
        f.type = SCALARS[ftype]
    else:
        f.type = F.TYPE_MESSAGE
        f.type_name = ".%s.%s" % (PACKAGE, ftype)


def _classes():
    fdp = descriptor_pb2.FileDescriptorProto(
        name="agentrt_tests_cri.proto", package=PACKAGE, syntax="proto3")
    for name, fields in MESSAGES.items():
        msg = fdp.message_type.add(name=name)
        for field in fields:
            _add_field(msg, field[0], field[1], field[2],
                       len(field) > 3 and field[3])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    factory = message_factory.MessageFactory(pool)
    return {name: factory.GetPrototype(
        pool.FindMessageTypeByName("%s.%s" % (PACKAGE, name)))
        for name in MESSAGES}


M = _classes()

# method: (service, request, response)
METHODS = {
    "Version": ("RuntimeService", "VersionRequest", "VersionResponse"),
    "RunPodSandbox": ("RuntimeService", "RunPodSandboxRequest",
                      "RunPodSandboxResponse"),
    "StopPodSandbox": ("RuntimeService", "PodSandboxIdRequest", "Empty"),
    "RemovePodSandbox": ("RuntimeService", "PodSandboxIdRequest", "Empty"),
    "PodSandboxStatus": ("RuntimeService", "PodSandboxStatusRequest",
                         "PodSandboxStatusResponse"),
    "ListPodSandbox": ("RuntimeService", "ListPodSandboxRequest",
                       "ListPodSandboxResponse"),
    "CreateContainer": ("RuntimeService", "CreateContainerRequest",
                        "CreateContainerResponse"),
    "StartContainer": ("RuntimeService", "ContainerIdRequest", "Empty"),
    "StopContainer": ("RuntimeService", "StopContainerRequest", "Empty"),
    "RemoveContainer": ("RuntimeService", "ContainerIdRequest", "Empty"),
    "ContainerStatus": ("RuntimeService", "ContainerStatusRequest",
                        "ContainerStatusResponse"),
    "ListContainers": ("RuntimeService", "ListContainersRequest",
                       "ListContainersResponse"),
    "ExecSync": ("RuntimeService", "ExecSyncRequest", "ExecSyncResponse"),
    "ImageStatus": ("ImageService", "ImageStatusRequest",
                    "ImageStatusResponse"),
}


class Client:
    def __init__(self, socket, timeout):
        self.channel = grpc.insecure_channel("unix://" + socket)
        self.timeout = timeout

    def call(self, method, **fields):
        service, req, resp = METHODS[method]
        stub = self.channel.unary_unary(
            "/%s.%s/%s" % (PACKAGE, service, method),
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=M[resp].FromString)
        request = M[req]()
        json_format.ParseDict(fields, request)
        return stub(request, timeout=self.timeout)


def _load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _dump(message):
    print(json_format.MessageToJson(message, preserving_proto_field_name=True,
                                    sort_keys=True))


def run(c, cmd, args):
    if cmd == "version":
        _dump(c.call("Version", version="v1"))
    elif cmd == "image":
        r = c.call("ImageStatus", image={"image": args[0]})
        if not r.image.id:
            return 1
        print(r.image.id)
    elif cmd == "runp":
        r = c.call("RunPodSandbox", config=_load(args[0]),
                   runtime_handler=args[1] if len(args) > 1 else "")
        print(r.pod_sandbox_id)
    elif cmd == "create":
        r = c.call("CreateContainer", pod_sandbox_id=args[0],
                   config=_load(args[1]), sandbox_config=_load(args[2]))
        print(r.container_id)
    elif cmd in ("start", "rm"):
        c.call({"start": "StartContainer", "rm": "RemoveContainer"}[cmd],
               container_id=args[0])
    elif cmd == "stop":
        c.call("StopContainer", container_id=args[0],
               timeout=int(args[1]) if len(args) > 1 else 0)
    elif cmd in ("stopp", "rmp"):
        c.call({"stopp": "StopPodSandbox", "rmp": "RemovePodSandbox"}[cmd],
               pod_sandbox_id=args[0])
    elif cmd == "inspect":
        _dump(c.call("ContainerStatus", container_id=args[0], verbose=True))
    elif cmd == "inspectp":
        _dump(c.call("PodSandboxStatus", pod_sandbox_id=args[0], verbose=True))
    elif cmd == "exec":
        r = c.call("ExecSync", container_id=args[0], timeout=int(args[1]),
                   cmd=args[2:])
        sys.stdout.buffer.write(r.stdout)
        sys.stdout.flush()
        sys.stderr.buffer.write(r.stderr)
        return r.exit_code
    elif cmd == "ps":
        for ct in c.call("ListContainers").containers:
            print(ct.id)
    elif cmd == "pods":
        for pod in c.call("ListPodSandbox").items:
            print(pod.id)
    else:
        raise SystemExit("cri: unknown command `%s`" % cmd)
    return 0


def main(argv):
    if len(argv) < 4 or argv[1] != "-s":
        raise SystemExit(__doc__)
    client = Client(argv[2], timeout=120)
    try:
        return run(client, argv[3], argv[4:])
    except grpc.RpcError as e:
        print("cri: %s: %s" % (e.code().name, e.details()), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
