# Install rules: `cmake --install build --prefix P` (make install PREFIX=P) puts
#   P/bin/tfhost
#   P/share/doc/tfhost/README.md, P/share/doc/tfhost/docs/   (README's links keep working)
#   P/share/bash-completion/completions/tfhost                (scripts/tfhost-completion.bash)
#   P/share/tfhost/instance_catalog.json                      (`tfhost plan`'s default catalog)
# tfhost's shared libraries stay the system's (make deps installs them). The target
# `dist` (make dist) packs the same tree together with those libraries into a
# relocatable tarball, dist/tfhost-<version>-linux-<arch>.tar.gz (scripts/make_dist.sh);
# a CUDA backend plugin, once there is one, installs to lib/ beside them.
include(GNUInstallDirs)

install(TARGETS tfhost RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
# bash-completion loads $XDG_DATA_DIRS/bash-completion/completions/<command> on first
# use; the default XDG_DATA_DIRS has /usr/local/share and /usr/share.
install(FILES ${PROJECT_SOURCE_DIR}/scripts/tfhost-completion.bash
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions RENAME tfhost)

# `tfhost plan` looks for its catalog in <bin>/../share/tfhost/ (host/plan/instance_catalog.h).
install(FILES ${PROJECT_SOURCE_DIR}/src/host/data/instance_catalog.json
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/tfhost)

set(TFHOST_DIST_DIR ${PROJECT_SOURCE_DIR}/dist CACHE PATH "Where `make dist` writes the release tarball")
add_custom_target(dist
  COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/make_dist.sh --build-dir ${PROJECT_BINARY_DIR}
          --out-dir ${TFHOST_DIST_DIR}
  USES_TERMINAL
  COMMENT "Packing the release tarball into ${TFHOST_DIST_DIR}")
add_dependencies(dist tfhost)
# The CUDA backend plugin goes in the tarball's lib/ when this build has one.
if(TARGET tfhost_cuda)
  add_dependencies(dist tfhost_cuda)
endif()
