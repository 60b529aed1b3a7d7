# The versions of the real tools the e2e suites build and drive (read by build.sh and run.sh).
CLI_VERSION=1.12.1
TF_VERSION=1.5.7
PROVIDER_VERSION=1.126.0
