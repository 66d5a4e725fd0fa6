# The ctest fixture of the twic0920 book that the probe and uci-adapter tests share
# (tests/twic_book.h), run with cmake -P:
#   MODE=setup  builds BOOK from PGN with GRAPHBOOK (a fresh book every ctest run) and
#               records its SHA-256 beside it;
#   MODE=check  (the fixture's cleanup) fails when the book changed: the tests that share
#               it must write only into copies.
foreach(var MODE GRAPHBOOK PGN BOOK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "twic_book_fixture.cmake needs -D${var}=...")
  endif()
endforeach()

if(MODE STREQUAL "setup")
  file(REMOVE "${BOOK}" "${BOOK}-lock" "${BOOK}.sha256")
  get_filename_component(dir "${BOOK}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  execute_process(COMMAND "${GRAPHBOOK}" build "${BOOK}" "${PGN}" --quiet
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "graphbook build ${BOOK} ${PGN} failed (${status}):\n${out}${err}")
  endif()
  file(SHA256 "${BOOK}" sum)
  file(WRITE "${BOOK}.sha256" "${sum}")
  message(STATUS "built ${BOOK} from ${PGN}")
elseif(MODE STREQUAL "check")
  file(READ "${BOOK}.sha256" want)
  file(SHA256 "${BOOK}" got)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${BOOK} changed during the tests (SHA-256 ${want} -> ${got}): "
                        "a test wrote into the shared book instead of a copy")
  endif()
else()
  message(FATAL_ERROR "MODE must be setup or check, not '${MODE}'")
endif()
