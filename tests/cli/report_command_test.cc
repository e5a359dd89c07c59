// `tune report` run as a user runs it, on a tuning database written through the database API
// (example_job.h): the page is written, a missing job, a malformed JOB and a missing database
// are errors that name them, and the page renders in headless Chromium with its curves drawn:
// Chromium's DOM has the series paths with their coordinates, and its screenshot has pixels
// of the curves' colours. Without chromium on PATH that test says `skipped: no chromium`.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "database/sqlite_database.h"
#include "tests/cli/report/example_job.h"
#include "tests/cli/report/png_image.h"
#include "tests/cli/tune_process_test.h"

namespace kiln::cli {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Chromium's executable on PATH, or "" when there is none.
std::string FindChromium() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    for (const char* name : {"chromium", "chromium-browser"}) {
      fs::path candidate = fs::path(dir) / name;
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) {
        return candidate.string();
      }
    }
  }
  return "";
}

// Pixels within `tolerance` per channel of the colour (r, g, b).
int64_t CountColour(const testing::PngImage& image, int r, int g, int b, int tolerance = 40) {
  int64_t n = 0;
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      const uint8_t* p = image.Pixel(x, y);
      if (std::abs(p[0] - r) <= tolerance && std::abs(p[1] - g) <= tolerance &&
          std::abs(p[2] - b) <= tolerance) {
        ++n;
      }
    }
  }
  return n;
}

class ReportCommandTest : public testing::TuneProcessTest {
 protected:
  ReportCommandTest() : db_path_((dir_ / "tuning.db").string()) {
    database::SqliteDatabase db(db_path_);
    job_ = testing::WriteExampleJob(db);
  }

  runtime::ProcessResult Chromium(const std::string& chromium, std::vector<std::string> args) {
    runtime::ProcessOptions options;
    options.argv = {chromium,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--no-first-run",
                    "--hide-scrollbars",
                    "--user-data-dir=" + (dir_ / ("chromium-" + std::to_string(runs_++))).string()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.capture_output = true;
    options.time_limit_s = 120;
    return runtime::RunProcess(options);
  }

  std::string db_path_;
  int64_t job_ = 0;
  int runs_ = 0;
};

TEST_F(ReportCommandTest, WritesThePage) {
  std::string out = (dir_ / "report.html").string();
  auto run =
      RunTune("report", {std::to_string(job_), "-o", out, "--db", db_path_, "--json"}, {}, 60);
  ASSERT_TRUE(run.ok()) << run.Describe() << "\n" << run.output;
  nlohmann::json summary = LastJson(run);
  EXPECT_EQ(summary["job"], job_);
  EXPECT_EQ(summary["tasks"], 2);
  EXPECT_EQ(summary["records"], 5);
  EXPECT_EQ(summary["errors"], 1);
  EXPECT_NEAR(summary["estimated_latency_s"].get<double>(), 1.005e-3, 1e-12);
  std::string html = ReadAll(out);
  EXPECT_NE(html.find("<td class=\"name\">matmul</td>"), std::string::npos);
  EXPECT_FALSE(fs::exists(out + ".tmp"));
  // `last` is the newest job: the other job of the file, with its one record.
  auto last = RunTune("report", {"last", "-o", out, "--db", db_path_, "--json"}, {}, 60);
  ASSERT_TRUE(last.ok()) << last.output;
  EXPECT_EQ(LastJson(last)["job"], job_ + 1);
  EXPECT_EQ(LastJson(last)["records"], 1);
}

TEST_F(ReportCommandTest, UnusableInputIsAnErrorThatNamesIt) {
  std::string out = (dir_ / "report.html").string();
  auto missing_job = RunTune("report", {"99", "-o", out, "--db", db_path_}, {}, 60);
  EXPECT_EQ(missing_job.exit_code, 1) << missing_job.output;
  EXPECT_NE(missing_job.output.find("job 99"), std::string::npos) << missing_job.output;
  auto bad_job = RunTune("report", {"one", "-o", out, "--db", db_path_}, {}, 60);
  EXPECT_EQ(bad_job.exit_code, 1) << bad_job.output;
  EXPECT_NE(bad_job.output.find("JOB: expected a job id"), std::string::npos) << bad_job.output;
  std::string no_db = (dir_ / "none.db").string();
  auto missing_db = RunTune("report", {"1", "-o", out, "--db", no_db}, {}, 60);
  EXPECT_EQ(missing_db.exit_code, 1) << missing_db.output;
  EXPECT_NE(missing_db.output.find(no_db), std::string::npos) << missing_db.output;
  EXPECT_FALSE(fs::exists(no_db));  // a query never creates the file
  auto bad_out = RunTune(
      "report", {"1", "-o", (dir_ / "no/such/dir.html").string(), "--db", db_path_}, {}, 60);
  EXPECT_EQ(bad_out.exit_code, 1) << bad_out.output;
  EXPECT_NE(bad_out.output.find("-o "), std::string::npos) << bad_out.output;
  auto usage = RunTune("report", {"1"}, {}, 60);
  EXPECT_EQ(usage.exit_code, 2) << usage.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(ReportCommandTest, RendersInHeadlessChromiumWithCurvesDrawn) {
  std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "skipped: no chromium";
  fs::path out = dir_ / "report.html";
  auto run =
      RunTune("report", {std::to_string(job_), "-o", out.string(), "--db", db_path_}, {}, 60);
  ASSERT_TRUE(run.ok()) << run.output;
  std::string url = "file://" + out.string();

  // The DOM after Chromium parsed the page: the model curve and the two task curves are
  // path elements with coordinates.
  auto dom = Chromium(chromium, {"--dump-dom", url});
  ASSERT_TRUE(dom.ok()) << dom.Describe() << "\n" << dom.output;
  std::regex series("<path class=\"series\" d=\"M[0-9.]+ [0-9.]+[^\"]*\"");
  auto begin = std::sregex_iterator(dom.output.begin(), dom.output.end(), series);
  EXPECT_EQ(std::distance(begin, std::sregex_iterator()), 3) << dom.output;
  EXPECT_NE(dom.output.find("<svg"), std::string::npos);

  // The screenshot: the curves' colours (html_report.cc) are on screen, the model's in orange
  // and the tasks' in blue; the page around them is white.
  fs::path png = dir_ / "report.png";
  auto shot = Chromium(chromium, {"--window-size=1200,1800", "--screenshot=" + png.string(), url});
  ASSERT_TRUE(shot.ok()) << shot.Describe() << "\n" << shot.output;
  testing::PngImage image = testing::ReadPng(png.string());
  ASSERT_EQ(image.width, 1200);
  int64_t model = CountColour(image, 0xc2, 0x41, 0x0c);
  int64_t tasks = CountColour(image, 0x1f, 0x6f, 0xb4);
  int64_t white = CountColour(image, 255, 255, 255, 4);
  EXPECT_GT(model, 200) << "the model curve is not drawn";
  EXPECT_GT(tasks, 200) << "the task curves are not drawn";
  EXPECT_GT(white, image.width * image.height / 2);
}

}  // namespace
}  // namespace kiln::cli
