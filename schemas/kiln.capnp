# Kiln's wire protocol between `tune`, kiln-coordinator and kiln-worker, carried over ZeroMQ
# ROUTER/DEALER sockets, one Envelope per message frame. Every envelope states the protocol
# version; a peer refuses any other version. Field numbers are append-only: a change that
# renumbers or retypes a field is a new protocolVersion (pinned by tests/schemas).
@0xffffee5db962f412;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("kiln::schemas::wire");

const protocolVersion :UInt32 = 1;

struct Envelope {
  protocolVersion @0 :UInt32;
  union {
    register @1 :Register;
    registered @2 :Registered;
    heartbeat @3 :Heartbeat;
    measureBatch @4 :MeasureBatch;
    results @5 :Results;
    submit @6 :Submit;
    submitted @7 :Submitted;
    jobEvent @8 :JobEvent;
    cancel @9 :Cancel;
    query @10 :Query;
    workers @11 :WorkerList;
    jobs @12 :JobList;
    error @13 :ErrorReply;
  }
}

# Worker -> coordinator: the worker's hello.
struct Register {
  workerId @0 :Text;
  deviceKey @1 :Text;     # "cpu-zen4", "cuda-h100", "fake"
  target @2 :Text;        # codegen target name
  canBuild @3 :Bool;
  canRun @4 :Bool;
  concurrency @5 :UInt32; # candidates it builds at once
  hardware @6 :Text;      # free text: CPU model, cores, memory
  hostname @7 :Text;
  # What the design space must fit (0: unknown): the widest SIMD register in bytes and the
  # cores a parallel kernel may use, so that a job is searched for the device that runs it.
  vectorBytes @8 :UInt32;
  numCores @9 :UInt32;
  # A GPU's limits (0: unknown, or not a GPU), which the design space sizes thread extents and
  # shared memory by, and what it computes beyond float32 ("fp16", "fp64", "int64").
  maxThreadsPerBlock @10 :UInt32;
  maxSharedBytes @11 :UInt32;  # per block
  warpSize @12 :UInt32;        # warp / subgroup size
  features @13 :List(Text);
}

# Coordinator -> worker.
struct Registered {
  accepted @0 :Bool;
  reason @1 :Text;
  heartbeatIntervalMs @2 :UInt32;
}

# Worker -> coordinator, also while a long build runs.
struct Heartbeat {
  workerId @0 :Text;
  inFlight @1 :UInt32;
}

struct KeyValue {
  name @0 :Text;
  value @1 :Int64;
}

struct WorkloadText {
  hash @0 :Text;
  name @1 :Text;
  tvmscript @2 :Text;
}

# One parameter of a kernel call whose values the client gives (a validation's carved call):
# a tensor's input elements and, when the kernel writes it, the elements expected after the
# call; or a scalar.
struct GivenParam {
  name @0 :Text;
  dtype @1 :Text;
  shape @2 :List(Int64);
  input @3 :Data;     # raw elements, row-major
  written @4 :Bool;
  expected @5 :Data;  # raw elements after a correct call; empty when not written (the input)
  scalar @6 :Bool;
  intValue @7 :Int64;
  floatValue @8 :Float64;
}

# A tensor as it was after the call: a parameter's raw elements.
struct CallTensor {
  param @0 :UInt32;
  dtype @1 :Text;
  shape @2 :List(Int64);
  data @3 :Data;
}

struct Candidate {
  id @0 :UInt64;
  workloadHash @1 :Text;
  scheduled @2 :Text;   # the scheduled function, TVMScript
  trace @3 :Text;       # its trace, JSON, for the record
  dims @4 :List(KeyValue);
  # Empty: seeded random inputs, checked against the worker's reference. Otherwise one entry
  # per parameter of the function, the inputs it runs on and the values it is checked against.
  given @5 :List(GivenParam);
  returnOutputs @6 :Bool;  # send back every tensor parameter after the run
}

struct MeasureSettings {
  target @0 :Text;
  number @1 :UInt32;
  repeat @2 :UInt32;
  minRepeatMs @3 :Float64;
  flushCache @4 :Bool;
  warmup @5 :UInt32;
  buildTimeLimitS @6 :Float64;
  runTimeLimitS @7 :Float64;
  inputSeed @8 :UInt64;
  numThreads @9 :UInt32;
}

# Coordinator -> worker. Workloads this worker has not been sent yet travel with the batch;
# later batches refer to them by hash.
struct MeasureBatch {
  batchId @0 :UInt64;
  settings @1 :MeasureSettings;
  workloads @2 :List(WorkloadText);
  candidates @3 :List(Candidate);
}

struct CandidateResult {
  id @0 :UInt64;
  errorKind @1 :Text;  # runtime::MeasureErrorKindName
  message @2 :Text;
  buildSeconds @3 :Float64;
  buildCacheHit @4 :Bool;
  runSeconds @5 :List(Float64);
  medianSeconds @6 :Float64;
  number @7 :UInt32;
  correctnessChecked @8 :Bool;
  maxAbsError @9 :Float64;
  maxRelError @10 :Float64;
  reference @11 :Text;
  # Non-empty when the worker's machinery failed (no compiler, no reference): the candidate is
  # not at fault and the result is not its record.
  machineryError @12 :Text;
  # runtime::MeasureResult::contention: the timing's wait for a core per second timed.
  contention @13 :Float64;
  # With Candidate.returnOutputs: every tensor parameter after the run that was checked.
  outputs @14 :List(CallTensor);
}

# Worker -> coordinator.
struct Results {
  batchId @0 :UInt64;
  workerId @1 :Text;
  results @2 :List(CandidateResult);
}

# Client -> coordinator: the client's hello.
struct Submit {
  model @0 :Text;       # the name or path the user gave
  modelBytes @1 :Data;  # the model file's contents
  target @2 :Text;
  device @3 :Text;      # empty: any worker of the target
  trials @4 :UInt64;
  options @5 :Text;     # JSON object
}

struct Submitted {
  jobId @0 :UInt64;
}

struct TaskProgress {
  index @0 :UInt32;
  name @1 :Text;
  trialsDone @2 :UInt64;
  trialsTotal @3 :UInt64;
  bestSeconds @4 :Float64;  # 0 when none
  # For the live task table: calls per model run, FLOP per call (0: unknown), the untuned
  # kernel's time (0: not measured) and whether the task will get no more trials.
  weight @5 :Float64;
  flop @6 :Float64;
  untunedSeconds @7 :Float64;
  done @8 :Bool;
}

# Coordinator -> client: a job's state, as answer to a status query and as a streamed event.
struct JobEvent {
  jobId @0 :UInt64;
  state @1 :Text;  # queued, running, done, failed, cancelled
  trialsDone @2 :UInt64;
  trialsTotal @3 :UInt64;
  tasks @4 :List(TaskProgress);
  message @5 :Text;
  model @6 :Text;
  target @7 :Text;
  elapsedS @8 :Float64;  # seconds the job's current run has been tuning
  client @9 :Text;       # who submitted it: its public key's first characters, or "anonymous"
}

struct Cancel {
  jobId @0 :UInt64;
}

struct Query {
  union {
    jobStatus @0 :UInt64;
    listJobs @1 :Void;
    listWorkers @2 :Void;
    watch @3 :UInt64;  # subscribe to a job's events until it finishes
  }
}

struct WorkerInfo {
  workerId @0 :Text;
  deviceKey @1 :Text;
  target @2 :Text;
  state @3 :Text;  # idle, busy, lost
  inFlight @4 :UInt32;
  lastSeenS @5 :Float64;  # seconds since its last message
  hardware @6 :Text;
}

struct WorkerList {
  workers @0 :List(WorkerInfo);
}

struct JobList {
  jobs @0 :List(JobEvent);
}

struct ErrorReply {
  kind @0 :Text;
  message @1 :Text;
}
