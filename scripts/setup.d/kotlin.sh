#!/usr/bin/env bash
# Installs a current Kotlin compiler from Maven Central into tools/kotlin-current
# (lib/ holds the compiler and its runtime dependencies, named as in a Kotlin
# distribution; bin/kotlinc is a small launcher), so the live template tests
# compile the Kotlin helper with both the Debian kotlinc (1.3) and a current
# release. Idempotent: does nothing when the pinned version is already there.
set -euo pipefail
cd "$(dirname "$0")/../.."

version=2.4.21
dest=tools/kotlin-current
if [ -f "$dest/VERSION" ] && [ "$(cat "$dest/VERSION")" = "$version" ] && [ -x "$dest/bin/kotlinc" ]; then
  exit 0
fi
if ! command -v mvn >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
  echo "setup: mvn and java are needed for the current Kotlin compiler; skipping it" >&2
  exit 0
fi
echo "setup: installing kotlin-compiler-embeddable $version" >&2
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib"
cat >"$dest/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.debugmode</groupId>
  <artifactId>kotlin-current</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.jetbrains.kotlin</groupId>
      <artifactId>kotlin-compiler-embeddable</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
</project>
POM
mvn -q -B -Dstyle.color=never -f "$dest/pom.xml" dependency:copy-dependencies \
  -DincludeScope=runtime -DoutputDirectory="$PWD/$dest/lib" >/dev/null
# The names of a Kotlin distribution: the compiler finds its home (and the
# stdlib for -include-runtime) from the location of kotlin-compiler.jar.
for jar in compiler-embeddable:compiler stdlib:stdlib script-runtime:script-runtime; do
  mv "$dest/lib/kotlin-${jar%%:*}-$version.jar" "$dest/lib/kotlin-${jar##*:}.jar"
done
cat >"$dest/bin/kotlinc" <<'SH'
#!/usr/bin/env bash
# kotlinc from tools/kotlin-current (kotlin-compiler-embeddable from Maven Central).
home="$(cd "$(dirname "$0")/.." && pwd)"
exec java -Xss4m -cp "$home/lib/*" org.jetbrains.kotlin.cli.jvm.K2JVMCompiler -no-reflect "$@"
SH
chmod +x "$dest/bin/kotlinc"
echo "$version" >"$dest/VERSION"
