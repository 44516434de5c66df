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
# The plain decode walk is instantiated in the core, for every message...
expect(core "${core}" "DecodeStruct<kwire::schema_internal::DecodeContext, kwire::FetchRequest>"
       TRUE "the plain decode walk")
# ... the observed one (explain) and the fillers are not.
expect(core "${core}" "ObservedContext|PrintObserver|PrintBuilder|RenderObjectTree" FALSE
       "explain code")
expect(core "${core}" "Fill(Minimal|Random)[A-Za-z]*<|EmptyRecordBatch|FindFillOps" FALSE
       "filler code")
expect(explain "${explain}" "DecodeStruct<kwire::schema_internal::ObservedContext, kwire::FetchRequest>"
       TRUE "the observed decode walk")
expect(fill "${fill}" "FillRandomStruct<kwire::FetchRequest>" TRUE "the random filler")
