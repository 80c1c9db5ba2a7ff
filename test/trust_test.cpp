// Trust in a project: fingerprints over real files, and the trust store on disk
// (include/hookbus/trust.hpp, docs/security.md).
#include "log_capture.hpp"
#include "script_fixture.hpp"
#include "support/sha256.hpp"

#include <hookbus/process.hpp>
#include <hookbus/trust.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <chrono>
#include <map>
#include <random>
#include <thread>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::TempDir;
using testing::write_file;
using testing::write_script;

class Trust : public ::testing::Test {
 protected:
  fs::path hooks() const { return project_.path() / ".hookbus" / "hooks"; }
  ProjectFiles files() const {
    return {project_.path(), {project_.path() / ".hookbus" / "config.json"}, {hooks()}};
  }
  TrustReport check(ProjectTrustPolicy policy = ProjectTrustPolicy::require) const {
    return check_trust(store_, files(), policy);
  }

  // Attack 1's two projects, which the fingerprint's first encoding could not
  // tell apart: a hook `allow-all` with a harmless `zz-notes` beside it, and
  // one file named like allow-all's record followed by zz-notes's path, with
  // zz-notes's content.
  inline static const std::string kAllowAll = "#!/bin/sh\necho '{\"decision\": \"allow\"}'\n";
  fs::path named_like_two_records() const {
    return hooks() / fmt::format("allow-all\n0755\n{}\n.hookbus", detail::sha256_hex(kAllowAll)) / "hooks" / "zz-notes";
  }
  void write_one_file_named_like_two_records() const { write_file(named_like_two_records(), "notes\n"); }
  void write_the_two_files() const {
    fs::remove_all(named_like_two_records().parent_path().parent_path());
    write_file(hooks() / "allow-all", kAllowAll, 0755);
    write_file(hooks() / "zz-notes", "notes\n");
  }

  // trust.json as version 1 wrote it, with the project's record of `print`.
  void write_first_version_store(const ProjectFingerprint& print) const {
    boost::json::object files;
    for (const auto& file : print.files)
      files.emplace(file.path, boost::json::object{{"mode", fmt::format("{:04o}", file.mode)}, {"sha256", file.sha256}});
    const boost::json::object record{
        {"fingerprint", first_encoding_digest(print.files)}, {"trusted_at", "2025-01-01T00:00:00Z"}, {"files", files}};
    write_file(store_.file(),
               boost::json::serialize(boost::json::object{
                   {"version", 1}, {"projects", boost::json::object{{project_.path().string(), record}}}}),
               0600);
  }
  // The fingerprint's first encoding, "{path}\n{mode}\n{sha256}\n" a file, which version 1 recorded the digest of.
  static std::string first_encoding_digest(const std::vector<FingerprintedFile>& files) {
    std::string bytes;
    for (const auto& file : files) bytes += fmt::format("{}\n{:04o}\n{}\n", file.path, file.mode, file.sha256);
    return detail::sha256_hex(bytes);
  }

  TempDir project_;
  TempDir state_;
  TrustStore store_{state_.path() / "hookbus" / "trust.json"};
};

TEST_F(Trust, AFingerprintListsEveryFileWithItsModeAndContentHash) {
  write_script(hooks() / "guard", "echo tool_call\n");
  write_file(hooks() / "lib" / "common.sh", "helper\n");
  write_file(project_.path() / ".hookbus" / "config.json", "{}");
  const ProjectFingerprint print = fingerprint(files());
  EXPECT_THAT(print.files, ElementsAre(Field(&FingerprintedFile::path, ".hookbus/config.json"),
                                       Field(&FingerprintedFile::path, ".hookbus/hooks/guard"),
                                       Field(&FingerprintedFile::path, ".hookbus/hooks/lib/common.sh")));
  EXPECT_EQ(print.files[1].mode, 0755u);
  EXPECT_EQ(print.files[0].sha256, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");  // sha256("{}")
  EXPECT_EQ(print.digest.size(), 64u);
}

TEST_F(Trust, TheFingerprintChangesWithContentModeOrAnAddedFile) {
  write_script(hooks() / "guard", "echo tool_call\n");
  const std::string original = fingerprint(files()).digest;
  write_script(hooks() / "guard", "echo agent_end\n");
  const std::string content = fingerprint(files()).digest;
  ::chmod((hooks() / "guard").c_str(), 0700);
  const std::string mode = fingerprint(files()).digest;
  write_script(hooks() / "other", "true\n");
  const std::string added = fingerprint(files()).digest;
  EXPECT_NE(original, content);
  EXPECT_NE(content, mode);
  EXPECT_NE(mode, added);
}

// Regression (attack 1): the first encoding joined each file's path, mode
// and hash with newlines, which a path may hold; one harmless file trusted
// had the digest of a hook and that file pulled later.
TEST_F(Trust, OneFileNamedLikeTheRecordsOfTwoHasAnotherDigestThanTheTwo) {
  write_one_file_named_like_two_records();
  const ProjectFingerprint one = fingerprint(files());
  write_the_two_files();
  const ProjectFingerprint two = fingerprint(files());
  ASSERT_EQ(one.files.size(), 1u);
  ASSERT_EQ(two.files.size(), 2u);
  ASSERT_EQ(first_encoding_digest(one.files), first_encoding_digest(two.files)) << "the first encoding's collision";
  EXPECT_NE(one.digest, two.digest);
}

// A property of fingerprint_digest: whatever the paths and hashes hold, two
// different file lists never give the same digest. The lists are made of the
// pieces an ambiguous encoding confuses (newlines, colons, digits, control
// bytes, text like a record or a length, empty parts), and each list's
// neighbouring files are also merged into one named like their records.
TEST(FingerprintDigest, DifferentFileListsNeverShareADigest) {
  const std::vector<std::string> pieces{"", "a", "e", "0", "4", "0755", ":", "3:", "4:0755", "\n", "\n0755\n", "\r", "\t",
                                        "\x01", "\x1b[2K", "/", "%", "\xff", "unreadable: is a FIFO"};
  const std::vector<std::uint32_t> modes{0, 0644, 0755, 07777};
  std::mt19937 random(20250601);  // fixed, so that a failure repeats
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
  const auto text = [&] {
    std::string made;
    for (std::size_t n = pick(4); n > 0; --n) made += pieces[pick(pieces.size())];
    return made;
  };
  std::map<std::string, std::vector<FingerprintedFile>> seen;  // digest -> the list that gave it
  const auto check = [&](std::map<std::string, FingerprintedFile> by_path) {
    std::vector<FingerprintedFile> list;
    for (auto& [path, file] : by_path) list.push_back(std::move(file));
    const auto [known, added] = seen.emplace(fingerprint_digest(list), list);
    ASSERT_TRUE(added || known->second == list) << "two lists share the digest " << known->first;
  };
  for (int round = 0; round < 5000; ++round) {
    std::map<std::string, FingerprintedFile> by_path;
    for (std::size_t n = pick(4); n > 0; --n) {
      std::string path = text();
      by_path.insert_or_assign(path, FingerprintedFile{path, modes[pick(modes.size())], text()});
    }
    check(by_path);
    for (auto first = by_path.begin(); first != by_path.end() && std::next(first) != by_path.end(); ++first) {
      const FingerprintedFile& second = std::next(first)->second;
      std::map<std::string, FingerprintedFile> merged = by_path;
      merged.erase(first->first);
      merged.erase(second.path);
      const std::string path =
          fmt::format("{}\n{:04o}\n{}\n{}", first->second.path, first->second.mode, first->second.sha256, second.path);
      merged.insert_or_assign(path, FingerprintedFile{path, second.mode, second.sha256});
      check(merged);
    }
  }
  EXPECT_GT(seen.size(), 5000u);
}

// Regression (attack 1): a version 1 record's digest, of the first encoding,
// is matched by other files; the recorded files are not.
TEST_F(Trust, AFirstVersionRecordWhoseDigestOtherFilesMatchDoesNotTrustThem) {
  write_one_file_named_like_two_records();
  write_first_version_store(fingerprint(files()));
  write_the_two_files();
  const TrustReport report = check();
  EXPECT_EQ(report.state, TrustState::changed);
  EXPECT_THAT(report.changes, ElementsAre(Field(&FileChange::path, ".hookbus/hooks/allow-all"),
                                          Field(&FileChange::path, named_like_two_records().lexically_relative(project_.path()).string()),
                                          Field(&FileChange::path, ".hookbus/hooks/zz-notes")));
}

// Records written before the encoding changed still trust what they recorded
// (no project becomes changed with nothing to show), and the store is
// written as version 2 at its next change.
TEST_F(Trust, AFirstVersionRecordOfAnUnchangedProjectStillTrustsIt) {
  write_script(hooks() / "guard", "true\n");
  write_first_version_store(fingerprint(files()));
  const TrustReport report = check();
  EXPECT_EQ(report.state, TrustState::trusted);
  EXPECT_EQ(report.trusted, report.now) << "its digest computed again";
  TempDir other;
  store_.trust(other.path(), {});
  EXPECT_EQ(boost::json::parse(testing::read_file(store_.file())).at("version"), 2);
  EXPECT_EQ(check().state, TrustState::trusted);
}

TEST_F(Trust, TheReportHoldsTheFilesTheStoreRecorded) {
  write_script(hooks() / "guard", "true\n");
  store_.trust(project_.path(), check().now);
  const ProjectFingerprint recorded = store_.find(project_.path())->fingerprint;
  EXPECT_EQ(check().trusted, recorded);
  write_script(hooks() / "guard", "false\n");
  EXPECT_EQ(check().trusted, recorded) << "changed";
  EXPECT_NE(check().now, recorded);
}

// Regression: trust.json wrote a path's bytes that are not UTF-8 as U+FFFD,
// so two such paths shared one record, and a path no longer matched its own.
TEST_F(Trust, PathsThatAreNotUtf8AreEachRecordedUnderTheirOwnName) {
  write_script(hooks() / "a\xff", "true\n");
  write_script(hooks() / "a\xfe", "false\n");
  write_script(hooks() / "50%", "true\n");
  store_.trust(project_.path(), check().now);
  EXPECT_EQ(check().state, TrustState::trusted);
  const auto document = boost::json::parse(testing::read_file(store_.file()));
  const auto& recorded = document.at("projects").at(project_.path().string()).at("files").as_object();
  EXPECT_TRUE(recorded.contains(".hookbus/hooks/a%FF"));
  EXPECT_TRUE(recorded.contains(".hookbus/hooks/a%FE"));
  EXPECT_TRUE(recorded.contains(".hookbus/hooks/50%25"));
}

TEST_F(Trust, AStoreOfANewerVersionTrustsNothingAndSaysSo) {
  write_script(hooks() / "guard", "true\n");
  store_.trust(project_.path(), check().now);
  write_file(store_.file(), R"({"version": 3, "projects": {}})", 0600);
  const TrustReport report = check();
  EXPECT_EQ(report.state, TrustState::store_unusable);
  EXPECT_THAT(report.message, AllOf(HasSubstr("'version' must be 1 or 2 (a newer hookbus may have written it)"),
                                    HasSubstr("fix or remove the file")));
}

TEST_F(Trust, ARecordWhoseDigestIsNotThatOfItsFilesTrustsNothing) {
  write_script(hooks() / "guard", "true\n");
  store_.trust(project_.path(), check().now);
  std::string text = testing::read_file(store_.file());
  const std::string digest = check().now.digest;
  text.replace(text.find(digest), digest.size(), std::string(64, '0'));
  write_file(store_.file(), text, 0600);
  const TrustReport report = check();
  EXPECT_EQ(report.state, TrustState::store_unusable);
  EXPECT_THAT(report.message, HasSubstr("'fingerprint' is not the digest of its 'files'"));
}

// ------------------------------------------ what is no regular file

// Regression (attack 8): a config that is a FIFO, a device, a directory or a
// dangling link was left out, so a project with nothing else needed no trust,
// and its config stopped the engine.
TEST_F(Trust, WhatIsAtAConfigsPathButIsNoRegularFileCountsAsWhatItIs) {
  const fs::path config = project_.path() / ".hookbus" / "config.json";
  testing::make_directories(config.parent_path());
  const auto recorded = [&] {
    const ProjectFingerprint print = fingerprint(files());
    return print.files.size() == 1 && print.files[0].path == ".hookbus/config.json" ? print.files[0].sha256 : "?";
  };
  ASSERT_EQ(::mkfifo(config.c_str(), 0644), 0);
  EXPECT_EQ(recorded(), "unreadable: is a FIFO, not a regular file");
  fs::remove(config);
  fs::create_symlink("/dev/zero", config);
  EXPECT_EQ(recorded(), "unreadable: is a character device, not a regular file");
  fs::remove(config);
  fs::create_symlink("gone.json", config);
  EXPECT_EQ(recorded(), "unreadable: is a symlink to 'gone.json', which does not exist");
  fs::remove(config);
  fs::create_directory(config);
  EXPECT_EQ(recorded(), "unreadable: is a directory, not a regular file");
}

TEST_F(Trust, AConfigThatAppearsAsAFifoAfterTrustIsAChange) {
  write_script(hooks() / "guard", "true\n");
  store_.trust(project_.path(), check().now);
  ASSERT_EQ(::mkfifo((project_.path() / ".hookbus" / "config.json").c_str(), 0644), 0);
  const TrustReport report = check();
  EXPECT_EQ(report.state, TrustState::changed);
  EXPECT_THAT(report.changes, ElementsAre(FileChange{FileChange::Kind::added, ".hookbus/config.json", ""}));
}

// ----------------------------------------------- code and data in the hook trees
// A hook may keep its state beside it (docs/security.md, "Trust"): a file
// nothing can run is data and left out, anything that could run or be loaded counts.

std::vector<std::string> paths_of(const ProjectFingerprint& print) {
  std::vector<std::string> paths;
  for (const auto& file : print.files) paths.push_back(file.path);
  return paths;
}

TEST_F(Trust, ADataFileOfAHookTreeIsLeftOutAndListedAsData) {
  write_script(hooks() / "guard", "exit 0\n");
  write_file(hooks() / "state.md", "# what the guard saw\n");
  write_file(hooks() / "cache" / "seen.json", "{}");
  const TrustReport report = check();
  EXPECT_THAT(paths_of(report.now), ElementsAre(".hookbus/hooks/guard"));
  EXPECT_THAT(report.data_files, ElementsAre(".hookbus/hooks/cache/seen.json", ".hookbus/hooks/state.md"));
}

TEST_F(Trust, AFileWithADataExtensionThatCouldRunIsCode) {
  write_file(hooks() / "executable.md", "echo\n", 0755);
  write_file(hooks() / "script.txt", "#!/bin/sh\necho\n");
  write_file(hooks() / "object.json", std::string("\x7f" "ELF\x02\x01\x01", 7));
  EXPECT_THAT(paths_of(fingerprint(files())),
              ElementsAre(".hookbus/hooks/executable.md", ".hookbus/hooks/object.json", ".hookbus/hooks/script.txt"));
}

TEST_F(Trust, AFileWithADataExtensionThatDecidesWhatCodeLoadsIsCode) {
  for (const char* name : {"package.json", "tsconfig.json", "pyproject.toml", "uv.lock"}) write_file(hooks() / name, "{}");
  EXPECT_THAT(paths_of(fingerprint(files())),
              ElementsAre(".hookbus/hooks/package.json", ".hookbus/hooks/pyproject.toml", ".hookbus/hooks/tsconfig.json",
                          ".hookbus/hooks/uv.lock"));
}

TEST_F(Trust, FilesOfAnyOtherExtensionOrNoneAreCode) {
  for (const char* name : {"helper.py", "__pycache__/helper.cpython-311.pyc", "lib.so", "Makefile", "rules.mk", "data.bin"})
    write_file(hooks() / name, "x");
  EXPECT_EQ(fingerprint(files()).files.size(), 6u);
}

TEST_F(Trust, AFileNamedOnItsOwnIsCoveredWhateverItHolds) {
  write_file(hooks() / "settings.json", "{}");
  ProjectFiles named = files();
  named.files.push_back(hooks() / "settings.json");
  const TrustReport report = check_trust(store_, named, ProjectTrustPolicy::require);
  EXPECT_THAT(paths_of(report.now), ElementsAre(".hookbus/hooks/settings.json"));
  EXPECT_THAT(report.data_files, IsEmpty());
}

// A script at the project's top brings its neighbours, not the project's every directory.
TEST_F(Trust, ATopLevelDirectoryCoversItsOwnFilesNotItsSubdirectories) {
  write_script(project_.path() / "hook.sh", "exit 0\n");
  write_file(project_.path() / "README.md", "# the project\n");
  write_file(project_.path() / "src" / "main.c", "int main() {}\n");
  const ProjectFiles top{.project = project_.path(), .files = {}, .directories = {}, .kind = "project",
                         .top_level_directories = {project_.path()}};
  const TrustReport report = check_trust(store_, top, ProjectTrustPolicy::require);
  EXPECT_THAT(paths_of(report.now), ElementsAre("hook.sh"));
  EXPECT_THAT(report.data_files, ElementsAre("README.md"));
}

// Regression (issue 9 audit): the fingerprint did not enter symlinked
// directories, but discovery does (a plugin directory linked from elsewhere).
TEST_F(Trust, AFingerprintEntersSymlinkedDirectoriesAsDiscoveryDoes) {
  write_script(project_.path() / "vendor" / "acme" / "tools" / "hooks" / "evil", "echo tool_call\n");
  testing::make_directories(hooks());
  fs::create_directory_symlink("../../vendor/acme", hooks() / "acme");
  EXPECT_THAT(fingerprint(files()).files, ElementsAre(Field(&FingerprintedFile::path, ".hookbus/hooks/acme/tools/hooks/evil")));
}

TEST_F(Trust, ASymlinkLoopEndsTheWalk) {
  write_script(hooks() / "guard", "true\n");
  fs::create_directory_symlink("..", hooks() / "up");
  fs::create_directory_symlink(".", hooks() / "self");
  EXPECT_THAT(fingerprint(files()).files, ElementsAre(Field(&FingerprintedFile::path, ".hookbus/hooks/guard")));
}

// A hook linked through /proc/self/root names, in the process that runs it,
// what that process's root holds there: not, in general, the file hashed here.
TEST_F(Trust, AFileReachedThroughProcIsRecordedAsRefusedNotWithTheContentItHasHere) {
  const fs::path reviewed = write_script(project_.path() / "tools" / "guard", "echo reviewed\n");
  testing::make_directories(hooks());
  fs::create_symlink(fs::path("/proc/self/root") / reviewed.relative_path(), hooks() / "guard");
  const ProjectFingerprint print = fingerprint(files());
  ASSERT_THAT(print.files, ElementsAre(Field(&FingerprintedFile::path, ".hookbus/hooks/guard")));
  EXPECT_THAT(print.files[0].sha256, AllOf(::testing::StartsWith("refused: "), HasSubstr("procfs")));
}

// A directory linked through /proc names, in each process, what that
// process sees there (/proc/self/cwd: its working directory, the engine's
// here, maybe `/`): the walk does not enter it (it was slow, and nothing
// reached so may run), but records the link as refused, so its going or
// being repointed is a change.
TEST_F(Trust, ADirectoryLinkedThroughProcIsRecordedAsRefusedAndNotEntered) {
  write_script(project_.path() / "tools" / "hooks" / "helper", "echo reviewed\n");
  testing::make_directories(hooks());
  fs::create_directory_symlink(fs::path("/proc/self/root") / (project_.path() / "tools").relative_path(), hooks() / "tools");
  const ProjectFingerprint print = fingerprint(files());
  ASSERT_THAT(print.files, ElementsAre(Field(&FingerprintedFile::path, ".hookbus/hooks/tools")));
  EXPECT_THAT(print.files[0].sha256, AllOf(::testing::StartsWith("refused: "), HasSubstr("procfs")));
}

TEST_F(Trust, AHookDirectoryLinkedThroughProcIsRecordedAsRefusedAndNotEntered) {
  write_script(project_.path() / "tools" / "hooks" / "helper", "echo reviewed\n");
  testing::make_directories(hooks().parent_path());
  fs::create_directory_symlink(fs::path("/proc/self/root") / (project_.path() / "tools" / "hooks").relative_path(), hooks());
  const ProjectFingerprint print = fingerprint(files());
  ASSERT_THAT(print.files, ElementsAre(Field(&FingerprintedFile::path, ".hookbus/hooks")));
  EXPECT_THAT(print.files[0].sha256, ::testing::StartsWith("refused: "));
}

// A dangling link of a hook tree is recorded with its target: the reviewer
// sees it, and the file it comes to name is a change of it.
TEST_F(Trust, ADanglingLinkInAHookTreeIsRecordedWithItsTarget) {
  testing::make_directories(hooks());
  fs::create_symlink("../../tools/guard", hooks() / "guard");
  const ProjectFingerprint print = fingerprint(files());
  ASSERT_THAT(print.files, ElementsAre(Field(&FingerprintedFile::path, ".hookbus/hooks/guard")));
  EXPECT_THAT(print.files[0].sha256, AllOf(::testing::StartsWith("unreadable: "), HasSubstr("../../tools/guard")));
  store_.trust(project_.path(), print);
  write_script(project_.path() / "tools" / "guard", "echo pulled later\n");
  EXPECT_THAT(check().changes, ElementsAre(AllOf(Field(&FileChange::path, ".hookbus/hooks/guard"),
                                                 Field(&FileChange::kind, FileChange::Kind::modified))));
}

TEST_F(Trust, AProjectWithNothingToRunNeedsNoTrust) {
  EXPECT_EQ(check().state, TrustState::nothing_to_trust);
  EXPECT_TRUE(check().project_may_run());
}

TEST_F(Trust, AProjectNeverTrustedIsUntrustedWithTheCommandToTrustIt) {
  write_script(hooks() / "guard", "true\n");
  const TrustReport report = check();
  EXPECT_EQ(report.state, TrustState::untrusted);
  EXPECT_FALSE(report.project_may_run());
  EXPECT_THAT(report.message, AllOf(HasSubstr("is not trusted"), HasSubstr("hookctl trust --project '" +
                                                                            project_.path().string() + "'")));
}

TEST_F(Trust, TrustingRecordsTheFingerprintInAPrivateFile) {
  write_script(hooks() / "guard", "true\n");
  store_.trust(project_.path(), check().now);
  EXPECT_EQ(check().state, TrustState::trusted);
  struct stat st {};
  ASSERT_EQ(::stat(store_.file().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  const auto document = boost::json::parse(testing::read_file(store_.file()));
  const auto& record = document.at("projects").at(project_.path().string());
  EXPECT_EQ(record.at("files").at(".hookbus/hooks/guard").at("mode"), "0755");
  EXPECT_EQ(record.at("fingerprint").as_string().size(), 64u);
}

TEST_F(Trust, AChangedProjectIsNotTrustedAndSaysWhatChanged) {
  write_script(hooks() / "guard", "true\n");
  write_script(hooks() / "old", "true\n");
  store_.trust(project_.path(), check().now);
  write_script(hooks() / "guard", "rm -rf ~\n");
  fs::remove(hooks() / "old");
  write_script(hooks() / "new", "true\n", 0700);
  const TrustReport report = check();
  EXPECT_EQ(report.state, TrustState::changed);
  EXPECT_FALSE(report.project_may_run());
  EXPECT_THAT(report.changes, ElementsAre(FileChange{FileChange::Kind::modified, ".hookbus/hooks/guard", "content"},
                                          FileChange{FileChange::Kind::added, ".hookbus/hooks/new", ""},
                                          FileChange{FileChange::Kind::removed, ".hookbus/hooks/old", ""}));
  EXPECT_THAT(report.message, AllOf(HasSubstr("changed since it was trusted"), HasSubstr("modified .hookbus/hooks/guard"),
                                    HasSubstr("added .hookbus/hooks/new"), HasSubstr("hookctl trust")));
}

// Regression (issue 9 audit): a project with hundreds of changed files gave a warning as long as all of them.
TEST_F(Trust, AChangedProjectsWarningListsTheFirstTenChangesAndCountsTheRest) {
  write_script(hooks() / "guard", "true\n");
  store_.trust(project_.path(), check().now);
  for (int i = 0; i < 30; ++i) write_script(hooks() / fmt::format("added-{:02}", i), "true\n");
  const TrustReport report = check();
  EXPECT_EQ(report.changes.size(), 30u) << "the report keeps them all";
  EXPECT_THAT(report.message, AllOf(HasSubstr("added .hookbus/hooks/added-09, and 20 more"),
                                    Not(HasSubstr("added-10"))));
}

// Regression (issue 9 audit): a project path with a quote gave a command that the shell could not run.
TEST_F(Trust, TheSuggestedTrustCommandQuotesAProjectPathWithAQuote) {
  const fs::path project = project_.path() / "it's";
  write_script(project / ".hookbus" / "hooks" / "guard", "true\n");
  const TrustReport report = check_trust(store_, {project, {}, {project / ".hookbus" / "hooks"}}, ProjectTrustPolicy::require);
  const std::string command = report.message.substr(report.message.find("hookctl trust --project ") + 24);
  const ProcessResult echoed = run_process({.program = "/bin/sh", .arguments = {"-c", "printf '%s' " + command}});
  EXPECT_EQ(echoed.stdout_text, project.string());
}

TEST_F(Trust, AModeChangeIsAChange) {
  write_script(hooks() / "guard", "true\n");
  store_.trust(project_.path(), check().now);
  ::chmod((hooks() / "guard").c_str(), 0700);
  EXPECT_THAT(check().changes,
              ElementsAre(FileChange{FileChange::Kind::modified, ".hookbus/hooks/guard", "mode 0755 -> 0700"}));
}

TEST_F(Trust, RevokingForgetsTheProject) {
  write_script(hooks() / "guard", "true\n");
  store_.trust(project_.path(), check().now);
  EXPECT_TRUE(store_.revoke(project_.path()));
  EXPECT_EQ(check().state, TrustState::untrusted);
  EXPECT_FALSE(store_.revoke(project_.path()));
}

TEST_F(Trust, ListShowsEveryTrustedProject) {
  write_script(hooks() / "guard", "true\n");
  TempDir other;
  store_.trust(project_.path(), check().now);
  store_.trust(other.path(), {});
  EXPECT_EQ(store_.list().size(), 2u);
}

TEST_F(Trust, AStoreWritableByOthersTrustsNothing) {
  write_script(hooks() / "guard", "true\n");
  store_.trust(project_.path(), check().now);
  ::chmod(store_.file().c_str(), 0666);
  const TrustReport report = check();
  EXPECT_EQ(report.state, TrustState::store_unusable);
  EXPECT_FALSE(report.project_may_run());
  EXPECT_THAT(report.message, AllOf(HasSubstr(store_.file().string()), HasSubstr("writable by group or others")));
}

TEST_F(Trust, AMalformedStoreTrustsNothingAndSaysHowToFixIt) {
  write_script(hooks() / "guard", "true\n");
  write_file(store_.file(), R"({"version": 2, "projects": {"/x": {"fingerprint": 7, "trusted_at": "2026-01-01T00:00:00Z", "files": {}}}})", 0600);
  const TrustReport report = check();
  EXPECT_EQ(report.state, TrustState::store_unusable);
  EXPECT_THAT(report.message, AllOf(HasSubstr("'fingerprint' must be a string"), HasSubstr("fix or remove the file")));
}

TEST_F(Trust, TrustAllRunsEveryProjectAndIgnoreRunsNone) {
  write_script(hooks() / "guard", "true\n");
  EXPECT_EQ(check(ProjectTrustPolicy::trust_all).state, TrustState::trusted_by_policy);
  EXPECT_TRUE(check(ProjectTrustPolicy::trust_all).project_may_run());
  store_.trust(project_.path(), check().now);
  EXPECT_EQ(check(ProjectTrustPolicy::ignore).state, TrustState::ignored_by_policy);
  EXPECT_FALSE(check(ProjectTrustPolicy::ignore).project_may_run());
}

TEST_F(Trust, FingerprintingAHugeProjectStopsAtItsLimitsAsUntrusted) {
  write_file(hooks() / "big", "", 0644);
  ASSERT_EQ(::truncate((hooks() / "big").c_str(), static_cast<off_t>(max_fingerprinted_bytes + 1)), 0);
  const TrustReport report = check();
  EXPECT_EQ(report.state, TrustState::untrusted);
  EXPECT_THAT(report.message, HasSubstr("bytes to fingerprint"));
}

// ------------------------------------------------ checked again before each run

TEST_F(Trust, ATrustedFileAsItWasTrustedMayRun) {
  write_script(hooks() / "guard", "true\n");
  const TrustedFiles trusted(files(), fingerprint(files()));
  EXPECT_EQ(trusted.why_not_run(hooks() / "guard"), std::nullopt);
  EXPECT_EQ(trusted.why_not_run(hooks() / "guard"), std::nullopt) << "and again";
}

TEST_F(Trust, AFileWhoseContentChangedSinceTrustedMayNotRunAndSaysHowToTrustIt) {
  write_script(hooks() / "guard", "true\n");
  const TrustedFiles trusted(files(), fingerprint(files()));
  ASSERT_EQ(trusted.why_not_run(hooks() / "guard"), std::nullopt);
  write_script(hooks() / "guard", "rm -rf ~\n");
  EXPECT_THAT(trusted.why_not_run(hooks() / "guard"),
              ::testing::Optional(AllOf(HasSubstr((hooks() / "guard").string() + " changed content since the project"),
                                        HasSubstr("hookctl trust --project '" + project_.path().string() + "'"))));
}

TEST_F(Trust, AFileWhoseModeChangedSinceTrustedMayNotRun) {
  write_script(hooks() / "guard", "true\n");
  const TrustedFiles trusted(files(), fingerprint(files()));
  ::chmod((hooks() / "guard").c_str(), 0700);
  EXPECT_THAT(trusted.why_not_run(hooks() / "guard"), ::testing::Optional(HasSubstr("changed mode (0755 -> 0700)")));
}

TEST_F(Trust, AFileThatWasNotTrustedMayNotRun) {
  write_script(hooks() / "guard", "true\n");
  const TrustedFiles trusted(files(), fingerprint(files()));
  write_script(hooks() / "new", "true\n");
  EXPECT_THAT(trusted.why_not_run(hooks() / "new"), ::testing::Optional(HasSubstr("appeared since the project")));
}

// The check before each run hashes a file again only when its stat moved
// (trust.hpp); a file whose times are within the last second is hashed
// every time, so these files are made older than that first.
class TrustedFilesFastPath : public Trust {
 protected:
  void SetUp() override {
    write_script(hooks() / "guard", "echo guard\n");
    write_script(hooks() / "lint", "echo lint\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // ages the files, synchronises nothing
    logger()->set_level(spdlog::level::debug);
  }
  bool hashed(const fs::path& file) const { return log_.text().find(file.string() + ": hashed") != std::string::npos; }

  testing::LogCapture log_;
};

TEST_F(TrustedFilesFastPath, AnUnchangedOldFileIsAcceptedWithoutHashingItAgain) {
  const TrustedFiles trusted(files(), fingerprint(files()));
  ASSERT_EQ(trusted.why_not_run(hooks() / "guard"), std::nullopt);
  ASSERT_TRUE(hashed(hooks() / "guard")) << "the first check hashes it";
  testing::LogCapture again;
  logger()->set_level(spdlog::level::debug);
  EXPECT_EQ(trusted.why_not_run(hooks() / "guard"), std::nullopt);
  EXPECT_EQ(again.text(), "") << "matched by its stat alone";
}

TEST_F(TrustedFilesFastPath, AContentChangeWithSizeAndModificationTimeRestoredIsFoundByTheChangeTime) {
  const TrustedFiles trusted(files(), fingerprint(files()));
  ASSERT_EQ(trusted.why_not_run(hooks() / "guard"), std::nullopt);
  struct stat before {};
  ASSERT_EQ(::stat((hooks() / "guard").c_str(), &before), 0);
  write_script(hooks() / "guard", "echo GUARD\n");  // same size
  const timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, (hooks() / "guard").c_str(), times, 0), 0);
  EXPECT_THAT(trusted.why_not_run(hooks() / "guard"), ::testing::Optional(HasSubstr("changed content")));
}

TEST_F(TrustedFilesFastPath, AFileReplacedByAnotherWithItsSizeAndModificationTimeIsFoundByTheInode) {
  const TrustedFiles trusted(files(), fingerprint(files()));
  ASSERT_EQ(trusted.why_not_run(hooks() / "lint"), std::nullopt);
  struct stat before {};
  ASSERT_EQ(::stat((hooks() / "lint").c_str(), &before), 0);
  const fs::path replacement = write_script(project_.path() / "replacement", "echo LINT\n");
  const timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, replacement.c_str(), times, 0), 0);
  fs::rename(replacement, hooks() / "lint");
  EXPECT_THAT(trusted.why_not_run(hooks() / "lint"), ::testing::Optional(HasSubstr("changed content")));
}

TEST_F(Trust, ContentReadIsAppliedOnlyWhenItIsTheContentTrusted) {
  write_file(project_.path() / ".hookbus" / "config.json", "{}");
  const TrustedFiles trusted(files(), fingerprint(files()));
  const fs::path config = project_.path() / ".hookbus" / "config.json";
  EXPECT_EQ(trusted.why_not_apply(config, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"),
            std::nullopt);  // sha256("{}")
  EXPECT_THAT(trusted.why_not_apply(config, std::string(64, '0')),
              ::testing::Optional(HasSubstr("changed content since the project")));
  EXPECT_THAT(trusted.why_not_apply(project_.path() / ".hookbus" / "config.local.json", std::string(64, '0')),
              ::testing::Optional(HasSubstr("appeared since the project")));
}

TEST_F(Trust, ReviewingIsThePolicyFreeViewOfWhatTrustingWouldRecord) {
  write_script(hooks() / "guard", "true\n");
  EXPECT_EQ(review_trust(store_, files()).state, TrustState::untrusted);
  store_.trust(project_.path(), review_trust(store_, files()).now);
  EXPECT_EQ(review_trust(store_, files()).state, TrustState::trusted);
  write_script(hooks() / "guard", "false\n");
  EXPECT_THAT(review_trust(store_, files()).changes,
              ElementsAre(FileChange{FileChange::Kind::modified, ".hookbus/hooks/guard", "content"}));
}

TEST_F(Trust, ReviewingAProjectOverTheLimitsThrowsRatherThanGiveAPartialFingerprint) {
  write_file(hooks() / "big", "", 0644);
  ASSERT_EQ(::truncate((hooks() / "big").c_str(), static_cast<off_t>(max_fingerprinted_bytes + 1)), 0);
  EXPECT_THAT([&] { (void)review_trust(store_, files()); }, ::testing::ThrowsMessage<TrustError>(HasSubstr("bytes to fingerprint")));
}

}  // namespace
}  // namespace hookbus
