# ctest codec.lean_core (issue 15 item 2): the core library holds decode, encode,
# equality and copy, and none of the explain visitor or the fillers, whose
# instantiations live in kwire_explain and kwire_fill.
#   cmake -DNM=<nm> -DCORE=<libkwire_codec> -DEXPLAIN=<libkwire_explain> -DFILL=<libkwire_fill>
#         -P codec/lean_core_test.cmake
function(symbols lib out)
  execute_process(COMMAND ${NM} -C --defined-only ${lib} OUTPUT_VARIABLE text
                  RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} ${lib} failed (${rc})")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(expect lib text pattern present what)
  string(REGEX MATCH "${pattern}" hit "${text}")
  if(present AND NOT hit)
    message(FATAL_ERROR "${lib}: no ${what} (/${pattern}/)")
  elseif(NOT present AND hit)
    message(FATAL_ERROR "${lib}: holds ${what}: ${hit}")
  endif()
  message(STATUS "${lib}: ${what}: ${present}")
endfunction()

symbols(${CORE} core)
symbols(${EXPLAIN} explain)
symbols(${FILL} fill)
# Presence is checked on symbols that exist at every optimization level (issue 36): the
# functions whose addresses the per-message tables hold (MessageOps in the core,
# ExplainOps in kwire_explain, FillOps in kwire_fill) must be emitted, however much of
# the walk the compiler inlines into them; a template instantiation such as
# DecodeStruct<DecodeContext, FetchRequest> need not be (at -O2 it is inlined away).
# The core holds the table and its decode entry, i.e. the plain decode walk...
expect(core "${core}" "kwire::generated::kFetchRequestOps" TRUE "the FetchRequest table")
expect(core "${core}"
       "MakeMessageOps<kwire::FetchRequest>\\(\\)::{lambda\\(kwire::Reader&, short, void\\*, kwire::RecordsDecode const&\\)"
       TRUE "the plain decode walk (the table's decode entry)")
# ... and none of the observed walk (explain) or the fillers.
expect(core "${core}" "ObservedContext|PrintObserver|PrintBuilder|RenderObjectTree|MakeExplainOps" FALSE
       "explain code")
expect(core "${core}" "Fill(Minimal|Random)[A-Za-z]*<|EmptyRecordBatch|FindFillOps|MakeFillOps" FALSE
       "filler code")
expect(explain "${explain}"
       "MakeExplainOps<kwire::FetchRequest>\\(\\)::{lambda\\(kwire::Reader&, short, kwire::PrintBuilder&, void\\*\\)"
       TRUE "the observed decode walk (the explain table's entry)")
expect(fill "${fill}" "MakeFillOps<kwire::FetchRequest>\\(\\)::{lambda\\(std::" TRUE
       "the random filler (the fill table's entry)")
