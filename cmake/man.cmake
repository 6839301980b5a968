# Run by the build (cmake -P): feeddiff(1) from the built binary's own parser, and both pages
# gzipped. FEEDDIFF the binary, GZIP gzip, TOML_PAGE dist/man/feeddiff.toml.5, OUT the directory.
file(MAKE_DIRECTORY "${OUT}")
execute_process(COMMAND "${FEEDDIFF}" --man OUTPUT_FILE "${OUT}/feeddiff.1" RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "`feeddiff --man` failed: ${failed}")
endif()
configure_file("${TOML_PAGE}" "${OUT}/feeddiff.toml.5" COPYONLY)
foreach(page feeddiff.1 feeddiff.toml.5)
  execute_process(COMMAND "${GZIP}" -9nc "${OUT}/${page}" OUTPUT_FILE "${OUT}/${page}.gz"
                  RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "gzip ${page} failed")
  endif()
endforeach()
