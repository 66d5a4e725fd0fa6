// The adapter's typed error (uci-adapter/adapter_error.h): which call failed
// is in the code, the words the user reads in the message.
#include <catch2/catch.hpp>

#include "uci-adapter/book_filter.h"
#include "uci-adapter/engine_process.h"

using gb::uci_adapter::AdapterError;
using gb::uci_adapter::BookFilter;
using gb::uci_adapter::EngineProcess;

TEST_CASE("An engine that cannot be run is an Engine error naming the program and the system's reason",
          "[uci][errors]") {
  AdapterError error{AdapterError::Code::Filter, ""};
  CHECK_FALSE(EngineProcess::start({"/nonexistent/engine"}, &error));
  CHECK(error.code == AdapterError::Code::Engine);
  CHECK(error.message == "cannot run '/nonexistent/engine': No such file or directory");
  CHECK_FALSE(EngineProcess::start({}, nullptr));  // no place for the error: still nullopt
}

TEST_CASE("A BookFilter that does not compile is a Filter error with the CQL parser's message",
          "[uci][errors]") {
  AdapterError error{AdapterError::Code::Engine, ""};
  CHECK_FALSE(BookFilter::compile("check (", &error));
  CHECK(error.code == AdapterError::Code::Filter);
  CHECK(error.message.starts_with("BookFilter:1:"));
  auto none = BookFilter::compile("  ", &error);
  REQUIRE(none);
  CHECK_FALSE(none->active());
  auto filter = BookFilter::compile("check", nullptr);
  REQUIRE(filter);
  CHECK(filter->active());
}
