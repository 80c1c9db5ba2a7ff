# Writes supervisor_image.cpp, which embeds the supervisor program in the
# library. cmake -DPROGRAM=... -DTEMPLATE=... -DOUTPUT=... -P embed_supervisor.cmake
file(SHA256 "${PROGRAM}" digest)
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
