#include "autotuner/isolation/worker_server.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include "autotuner/core/error.hpp"
#include "autotuner/isolation/line_channel.hpp"
#include "autotuner/isolation/protocol.hpp"
#include "kernels/registry.hpp"

namespace occtune::isolation {
namespace {

struct Answer {
  json body;
  bool stop = false;  // leave after sending it
};

json failure(ExitCode code, const std::string& message, bool exiting) {
  return {{"ok", false}, {"code", int(code)}, {"message", message}, {"exiting", exiting}};
}

class Server {
 public:
  explicit Server(const BackendFactory& make) : make_(make) {}
  bool ready() const { return backend_ != nullptr; }

  Answer handle(const json& request) {
    const std::string op = decoding("request", [&] { return request.at("op").get<std::string>(); });
    if (op == "shutdown") return {{{"ok", true}}, true};
    if (op == "hello") {
      const int version = decoding("hello", [&] { return request.at("protocol").get<int>(); });
      if (version != kProtocolVersion)
        fail(ExitCode::kRuntime, "worker protocol version mismatch; rerun occtune");
      backend_ = make_(decoding("hello", [&] { return request.at("device").get<std::string>(); }));
      return {{{"ok", true},
               {"protocol", kProtocolVersion},
               {"pid", int(::getpid())},
               {"device", encode(backend_->device())},
               {"reference_clock_mhz", backend_->throttle_reference_clock_mhz()}}};
    }
    if (!backend_) fail(ExitCode::kRuntime, "worker protocol: '" + op + "' before 'hello'");
    if (op == "plan") {
      const auto name = decoding("plan", [&] { return request.at("family").get<std::string>(); });
      const auto* family = kernels::find_family(name);
      if (!family) fail(ExitCode::kRuntime, "worker: unknown kernel family '" + name + "'");
      const int min_tile = decoding("plan", [&] { return request.at("min_tile").get<int>(); });
      const Layout layout = decode_layout(request.at("layout"));
      return {{{"ok", true},
               {"plan", encode(backend_->plan(*family, decode_shape(request.at("shape")), min_tile,
                                              layout))}}};
    }
    if (op == "open_shape") {
      if (request.contains("family"))  // a user kernel family's problem
        backend_->open_user_problem(
            decoding("open_shape", [&] { return request.at("family").get<std::string>(); }),
            decode_shape(request.at("shape")), decode_policy(request.at("policy")));
      else
        backend_->open_shape(decode_shape(request.at("shape")), decode_layout(request.at("layout")),
                             decode_policy(request.at("policy")));
      return {{{"ok", true}}};
    }
    if (op == "reference_samples") {
      const int count = decoding("request", [&] { return request.at("count").get<int>(); });
      return {{{"ok", true}, {"batch", encode(backend_->reference_samples(count))}}};
    }
    if (op == "check") {
      const Measurement m = backend_->check(decode_candidate(request.at("candidate")));
      // A crash is a sticky error: this context can run nothing more, so answer and leave.
      const bool lost = m.outcome == Outcome::kCrashed;
      return {{{"ok", true}, {"check", encode_check(m)}, {"exiting", lost}}, lost};
    }
    if (op == "samples") {
      const int count = decoding("request", [&] { return request.at("count").get<int>(); });
      const SampleBatch b = backend_->samples(decode_candidate(request.at("candidate")), count);
      const bool lost = b.outcome == Outcome::kCrashed;
      return {{{"ok", true}, {"batch", encode(b)}, {"exiting", lost}}, lost};
    }
    fail(ExitCode::kRuntime, "worker protocol: unknown request '" + op + "'");
  }

 private:
  const BackendFactory& make_;
  std::unique_ptr<MeasurementBackend> backend_;
};

}  // namespace

int serve(int fd, const BackendFactory& make_backend) {
  LineChannel channel(fd);
  Server server(make_backend);
  std::string line;
  while (channel.receive(line, -1) == LineChannel::Status::kLine) {
    Answer answer;
    try {
      answer = server.handle(json::parse(line));
    } catch (const Error& e) {
      // A usage error (a shape that does not fit) leaves a started worker fine; anything else
      // means its CUDA state cannot be trusted any more (or it never got a device), so it
      // answers and leaves.
      const bool keep = e.code() == ExitCode::kUsage && server.ready();
      answer = {failure(e.code(), e.what(), !keep), !keep};
    } catch (const std::exception& e) {
      answer = {failure(ExitCode::kRuntime, std::string("worker: ") + e.what(), true), true};
    }
    if (!channel.send(wire(answer.body))) return kWorkerDone;  // the parent is gone
    if (answer.stop)
      return answer.body.value("ok", false) && !answer.body.value("exiting", false)
                 ? kWorkerDone
                 : kWorkerStopped;
  }
  return kWorkerDone;
}

}  // namespace occtune::isolation
