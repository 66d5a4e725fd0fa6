// GET /api/query: CQL over the book graph (the query/ component), with a
// time and node budget; a syntax error is a 400 naming the place.
#pragma once

#include "book/explore/opening_names.h"
#include "serve/book_source.h"

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace gb::serve {

// Whether this build answers /api/query (false: it answers 501).
bool query_available();
void answer_query(ThreadReaders& readers, const explore::OpeningTable* names, const httplib::Request& req,
                  httplib::Response& res);

}  // namespace gb::serve
