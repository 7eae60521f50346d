// Tests of engine/remote/connection_string: where a remote store is, read from an Azure Storage
// connection string or an endpoint URL with a SAS the way the Azure SDKs read them, and that no
// error message or redacted location shows a key or a signature.

#include "engine/remote/connection_string.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "partkv/base64.h"
#include "tests/testing/status_matchers.h"

namespace partkv::remote {
namespace {

using ::partkv::testing::StatusIs;
using ::testing::HasSubstr;

// Secrets that must never appear in a message. The key is a valid encoding; the signature is
// percent-encoded base64 as Azure issues it.
const std::string kKeyBytes = "partkv-test-account-key-0123456789abcdef";
const std::string kKey = Base64Encode(kKeyBytes);
const std::string kSig = "Qz9xW2vE7rT4yU1iO0pLkJhGfDsA1mN5bV8cX6zZ%2BaQ%3D";
const std::string kSas = "sv=2019-02-02&ss=t&sp=rwdlacu&se=2030-01-01T00%3A00%3A00Z&sig=" + kSig;
const std::string kDevKey =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

// "URL account=A key=BASE64 | sas=SAS [dev]", or "error: MESSAGE".
std::string Parse(std::string_view location) {
  Result<Endpoint> e = ParseLocation(location);
  if (!e.ok()) return "error: " + std::string(e.status().message());
  std::string out = e->Url() + " account=" + e->account;
  if (!e->key.empty()) out += " key=" + Base64Encode(e->key);
  if (!e->sas.empty()) out += " sas=" + e->sas;
  if (e->development_storage) out += " dev";
  return out;
}

// Whether `text` holds 8 consecutive characters of any secret.
bool ShowsSecret(std::string_view text) {
  for (const std::string& secret : {kKey, kSig, kDevKey, std::string("hunter2pw")}) {
    for (size_t i = 0; i + 8 <= secret.size(); ++i) {
      if (text.find(secret.substr(i, 8)) != std::string_view::npos) return true;
    }
  }
  return false;
}

// The message of a refused location; fails the test unless the location is refused with
// InvalidArgument and a message that shows no secret.
std::string Error(std::string_view location) {
  Result<Endpoint> e = ParseLocation(location);
  if (e.ok()) {
    ADD_FAILURE() << "accepted: " << Redact(location);
    return "";
  }
  EXPECT_THAT(e, StatusIs(Status::Code::kInvalidArgument));
  std::string message(e.status().message());
  EXPECT_FALSE(ShowsSecret(message)) << message;
  return message;
}

// --- Connection strings ---------------------------------------------------------------------

TEST(ConnectionString, DevelopmentStorageIsTheEmulatorsFixedAccount) {
  Result<Endpoint> e = ParseLocation("UseDevelopmentStorage=true");
  ASSERT_OK(e);
  EXPECT_EQ(e->scheme, "http");
  EXPECT_EQ(e->host, "127.0.0.1");
  EXPECT_EQ(e->port, 10002);
  EXPECT_EQ(e->base_path, "/devstoreaccount1");
  EXPECT_EQ(e->account, "devstoreaccount1");
  EXPECT_EQ(e->key, Base64Decode(kDevKey).value());
  EXPECT_EQ(e->sas, "");
  EXPECT_TRUE(e->development_storage);
  // Names case-insensitive, "true" too, a trailing ';' and whitespace allowed.
  EXPECT_EQ(
      Parse("  usedevelopmentstorage = TRUE ; "),
      "http://127.0.0.1:10002/devstoreaccount1 account=devstoreaccount1 key=" + kDevKey + " dev");
}

TEST(ConnectionString, DevelopmentStorageProxyReplacesSchemeAndHostOnly) {
  EXPECT_EQ(Parse("UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://ipv4.fiddler"),
            "http://ipv4.fiddler:10002/devstoreaccount1 account=devstoreaccount1 key=" + kDevKey +
                " dev");
  EXPECT_EQ(
      Parse("UseDevelopmentStorage=true;DevelopmentStorageProxyUri=https://[::1]/"),
      "https://[::1]:10002/devstoreaccount1 account=devstoreaccount1 key=" + kDevKey + " dev");
  // A port would not be used, a path or a query mean nothing: refused rather than dropped.
  EXPECT_THAT(Error("UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://proxy:8888"),
              HasSubstr("port 10002"));
  EXPECT_THAT(Error("UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://proxy/x"),
              HasSubstr("has a path or a query"));
  EXPECT_THAT(Error("UseDevelopmentStorage=true;DevelopmentStorageProxyUri=ftp://proxy"),
              HasSubstr("DevelopmentStorageProxyUri 'ftp://proxy' is not an http or https URL"));
  EXPECT_THAT(Error("DevelopmentStorageProxyUri=http://proxy"),
              HasSubstr("DevelopmentStorageProxyUri needs UseDevelopmentStorage=true"));
}

TEST(ConnectionString, DevelopmentStorageTakesNoOtherTableSetting) {
  EXPECT_THAT(Error("UseDevelopmentStorage=false"),
              HasSubstr("UseDevelopmentStorage must be true"));
  EXPECT_THAT(Error("UseDevelopmentStorage=true;AccountName=a"),
              HasSubstr("UseDevelopmentStorage=true takes no AccountName"));
  EXPECT_THAT(Error("UseDevelopmentStorage=true;AccountKey=" + kKey),
              HasSubstr("UseDevelopmentStorage=true takes no AccountKey"));
  EXPECT_THAT(Error("UseDevelopmentStorage=true;TableEndpoint=http://127.0.0.1:10002/x"),
              HasSubstr("UseDevelopmentStorage=true takes no TableEndpoint"));
  // Other services' endpoints are ignored here as everywhere.
  EXPECT_THAT(Parse("UseDevelopmentStorage=true;BlobEndpoint=http://127.0.0.1:10000/x"),
              HasSubstr("http://127.0.0.1:10002/devstoreaccount1 "));
}

TEST(ConnectionString, AccountKeyComputesTheEndpointFromEndpointSuffix) {
  EXPECT_EQ(Parse("DefaultEndpointsProtocol=https;AccountName=a;AccountKey=" + kKey +
                  ";EndpointSuffix=core.windows.net"),
            "https://a.table.core.windows.net account=a key=" + kKey);
  // https and core.windows.net are the defaults.
  EXPECT_EQ(Parse("AccountName=a;AccountKey=" + kKey),
            "https://a.table.core.windows.net account=a key=" + kKey);
  EXPECT_EQ(Parse("DefaultEndpointsProtocol=http;AccountName=store1;AccountKey=" + kKey +
                  ";EndpointSuffix=core.chinacloudapi.cn"),
            "http://store1.table.core.chinacloudapi.cn account=store1 key=" + kKey);
  Result<Endpoint> e = ParseLocation("AccountName=a;AccountKey=" + kKey);
  ASSERT_OK(e);
  EXPECT_EQ(e->host, "a.table.core.windows.net");
  EXPECT_EQ(e->port, 443);
  EXPECT_EQ(e->base_path, "");
  EXPECT_EQ(e->key, kKeyBytes);
  EXPECT_FALSE(e->development_storage);
  // A suffix may carry a port (a hosts-file setup of Azurite's production-style URLs).
  EXPECT_EQ(Parse("DefaultEndpointsProtocol=http;AccountName=a;AccountKey=" + kKey +
                  ";EndpointSuffix=localhost:10002"),
            "http://a.table.localhost:10002 account=a key=" + kKey);
}

TEST(ConnectionString, SasWithAccountNameComputesTheEndpointToo) {
  EXPECT_EQ(Parse("AccountName=a;SharedAccessSignature=" + kSas),
            "https://a.table.core.windows.net account=a sas=" + kSas);
  EXPECT_THAT(Error("SharedAccessSignature=" + kSas),
              HasSubstr("no AccountName for an endpoint computed from EndpointSuffix"));
  EXPECT_THAT(Error("EndpointSuffix=core.windows.net;AccountKey=" + kKey),
              HasSubstr("AccountKey is given without AccountName"));
}

TEST(ConnectionString, TableEndpointOverridesTheComputedEndpoint) {
  // Cosmos DB for Table, as its portal gives it.
  Result<Endpoint> cosmos =
      ParseLocation("DefaultEndpointsProtocol=https;AccountName=a;AccountKey=" + kKey +
                    ";TableEndpoint=https://a.table.cosmos.azure.com:443/;");
  ASSERT_OK(cosmos);
  EXPECT_EQ(cosmos->scheme, "https");
  EXPECT_EQ(cosmos->host, "a.table.cosmos.azure.com");
  EXPECT_EQ(cosmos->port, 443);
  EXPECT_EQ(cosmos->base_path, "");
  EXPECT_EQ(cosmos->account, "a");
  EXPECT_EQ(cosmos->Url(), "https://a.table.cosmos.azure.com");
  // TableEndpoint wins over EndpointSuffix and DefaultEndpointsProtocol.
  EXPECT_EQ(Parse("DefaultEndpointsProtocol=https;AccountName=a;AccountKey=" + kKey +
                  ";EndpointSuffix=core.windows.net;TableEndpoint=http://a.table.example.org:8080"),
            "http://a.table.example.org:8080 account=a key=" + kKey);
}

TEST(ConnectionString, AzuritesFullStringIsPathStyle) {
  // The emulator's connection string as its documentation prints it, over several lines.
  std::string azurite = "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;\n";
  azurite += "    AccountKey=" + kDevKey + ";\n";
  azurite += "    BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;\n";
  azurite += "    TableEndpoint=http://127.0.0.1:10002/devstoreaccount1;\n";
  azurite += "    QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1; \n";
  Result<Endpoint> e = ParseLocation(azurite);
  ASSERT_OK(e);
  EXPECT_EQ(e->scheme, "http");
  EXPECT_EQ(e->host, "127.0.0.1");
  EXPECT_EQ(e->port, 10002);
  EXPECT_EQ(e->base_path, "/devstoreaccount1");
  EXPECT_EQ(e->account, "devstoreaccount1");
  EXPECT_EQ(Base64Encode(e->key), kDevKey);
  EXPECT_FALSE(e->development_storage);  // the same endpoint, not the shortcut
}

TEST(ConnectionString, TableEndpointWithSasNeedsNoAccountName) {
  EXPECT_EQ(Parse("TableEndpoint=https://a.table.core.windows.net/;SharedAccessSignature=" + kSas),
            "https://a.table.core.windows.net account=a sas=" + kSas);
  // A leading '?' on the SAS is dropped, as the SDKs do.
  EXPECT_EQ(
      Parse("TableEndpoint=http://127.0.0.1:10002/devstoreaccount1;SharedAccessSignature=?" + kSas),
      "http://127.0.0.1:10002/devstoreaccount1 account=devstoreaccount1 sas=" + kSas);
  // A host that does not name the account leaves it empty: a SAS does not need it.
  EXPECT_EQ(Parse("TableEndpoint=https://tables.example.org;SharedAccessSignature=" + kSas),
            "https://tables.example.org account= sas=" + kSas);
  EXPECT_THAT(Error("TableEndpoint=https://a.table.core.windows.net;SharedAccessSignature=sv=1"),
              HasSubstr("SharedAccessSignature is not a SAS: it has no sig"));
}

TEST(ConnectionString, SettingNamesIgnoreCaseValuesKeepIt) {
  EXPECT_EQ(Parse("accountname=MyAcct;ACCOUNTKEY=" + kKey + ";endpointsuffix=Core.Windows.Net"),
            "https://MyAcct.table.Core.Windows.Net account=MyAcct key=" + kKey);
  EXPECT_EQ(Parse("DEFAULTENDPOINTSPROTOCOL=HTTP;AccountName=a;AccountKey=" + kKey),
            "http://a.table.core.windows.net account=a key=" + kKey);
}

TEST(ConnectionString, SegmentsMayBeEmptyAndPadded) {
  EXPECT_EQ(Parse(";; AccountName = a ;;\tAccountKey =" + kKey + " ;;"),
            "https://a.table.core.windows.net account=a key=" + kKey);
}

TEST(ConnectionString, ValuesAreSplitAtTheFirstEquals) {
  // The key's padding and the SAS's own '=' stay in the values.
  ASSERT_EQ(kKey.back(), '=');
  Result<Endpoint> e = ParseLocation(
      "TableEndpoint=https://a.table.core.windows.net;"
      "SharedAccessSignature=" +
      kSas);
  ASSERT_OK(e);
  EXPECT_EQ(e->sas, kSas);
  EXPECT_EQ(e->key, "");
}

TEST(ConnectionString, OtherServicesSettingsAreIgnored) {
  EXPECT_EQ(Parse("BlobEndpoint=https://a.blob.core.windows.net;QueueEndpoint=https://q;"
                  "FileEndpoint=https://f;BlobSecondaryEndpoint=x;QueueSecondaryEndpoint=y;"
                  "FileSecondaryEndpoint=z;TableEndpoint=https://a.table.core.windows.net;"
                  "TableSecondaryEndpoint=https://a-secondary.table.core.windows.net;"
                  "SharedAccessSignature=" +
                  kSas),
            "https://a.table.core.windows.net account=a sas=" + kSas);
  EXPECT_THAT(Error("TableSecondaryEndpoint=https://a-secondary.table.core.windows.net;"
                    "AccountName=a;AccountKey=" +
                    kKey),
              HasSubstr("TableSecondaryEndpoint is given without TableEndpoint"));
}

TEST(ConnectionString, UnknownSettingsAreRefusedByName) {
  EXPECT_THAT(Error("AccountName=a;AccountKey=" + kKey + ";Foo=1"),
              HasSubstr("unknown setting 'Foo'"));
  EXPECT_THAT(Error("AcountName=a;AccountKey=" + kKey), HasSubstr("unknown setting 'AcountName'"));
  // Cosmos DB for NoSQL's form is refused with the way to Cosmos DB for Table.
  EXPECT_THAT(Error("AccountEndpoint=https://a.documents.azure.com:443/;AccountKey=" + kKey),
              HasSubstr("for Cosmos DB for Table give TableEndpoint="));
}

TEST(ConnectionString, SecretShapedTextIsNeverShown) {
  // A key or a signature pasted without its setting name: named by position only.
  EXPECT_THAT(Error("AccountName=a;" + kKey), HasSubstr("segment 2 names no known setting"));
  EXPECT_THAT(Error("AccountName=a;AccountKey=" + kKey + ";" + kSig),
              HasSubstr("segment 3 is not Setting=value"));
  EXPECT_THAT(Error("AccountName=a;AccountKey=" + kKey + ";garbage"),
              HasSubstr("segment 3 ('garbage') is not Setting=value"));
  // A key under a wrong name.
  EXPECT_THAT(Error("AccountName=" + kKey + ";AccountKey=" + kKey),
              HasSubstr("AccountName is not an account name"));
  EXPECT_THAT(Error("TableEndpoint=" + kKey + ";AccountName=a;AccountKey=" + kKey),
              HasSubstr("TableEndpoint is not an http or https URL"));
  EXPECT_THAT(Error("DefaultEndpointsProtocol=" + kKey + ";AccountName=a;AccountKey=" + kKey),
              HasSubstr("DefaultEndpointsProtocol must be http or https"));
  EXPECT_THAT(Error("EndpointSuffix=" + kKey + ";AccountName=a;AccountKey=" + kKey),
              HasSubstr("EndpointSuffix is not a host name suffix"));
}

TEST(ConnectionString, XmlEscapedSasGetsAHint) {
  EXPECT_THAT(Error("TableEndpoint=https://a.table.core.windows.net;"
                    "SharedAccessSignature=sv=2015-04-05&amp;sr=t&amp;sig=" +
                    kSig),
              HasSubstr("'&amp;' in SharedAccessSignature is an XML escape"));
}

TEST(ConnectionString, DuplicateSettingsAreRefused) {
  EXPECT_THAT(Error("AccountName=a;accountname=b;AccountKey=" + kKey),
              HasSubstr("AccountName is given twice"));
  EXPECT_THAT(Error("AccountName=a;AccountKey=" + kKey + ";AccountKey=" + kKey),
              HasSubstr("AccountKey is given twice"));
  EXPECT_THAT(Error("BlobEndpoint=x;BLOBENDPOINT=y;AccountName=a;AccountKey=" + kKey),
              HasSubstr("BlobEndpoint is given twice"));
}

TEST(ConnectionString, CredentialErrorsNameWhatIsWrong) {
  EXPECT_THAT(Error("AccountName=a;AccountKey=" + kKey.substr(0, 20) + "!" + kKey.substr(21)),
              HasSubstr("AccountKey is not base64 (invalid character at offset 20)"));
  EXPECT_THAT(Error("AccountName=a;AccountKey=" + kKey.substr(1)),
              HasSubstr("AccountKey is not base64"));
  EXPECT_THAT(Error("AccountName=a;AccountKey=" + kKey + ";SharedAccessSignature=" + kSas),
              HasSubstr("both AccountKey and SharedAccessSignature are given"));
  EXPECT_THAT(
      Error("AccountName=a"),
      HasSubstr("no credential: give AccountName and AccountKey, or SharedAccessSignature"));
  EXPECT_THAT(Error("AccountName=;AccountKey=" + kKey), HasSubstr("AccountName is empty"));
  EXPECT_THAT(Error("AccountName=a;AccountKey= ;"), HasSubstr("AccountKey is empty"));
  EXPECT_THAT(Error("AccountName=a;SharedAccessSignature=?"),
              HasSubstr("SharedAccessSignature is empty"));
  EXPECT_THAT(Error("AccountName=a;SharedAccessSignature=sv=1&sig=a b"),
              HasSubstr("SharedAccessSignature holds whitespace"));
}

TEST(ConnectionString, EndpointErrorsNameTheSetting) {
  std::string sas = ";SharedAccessSignature=" + kSas;
  EXPECT_THAT(Error("TableEndpoint=ftp://x" + sas),
              HasSubstr("TableEndpoint 'ftp://x' is not an http or https URL"));
  EXPECT_THAT(Error("TableEndpoint=https://a.table.core.windows.net?sv=1&sig=" + kSig + sas),
              HasSubstr("has a query: give the SAS as SharedAccessSignature"));
  EXPECT_THAT(Error("TableEndpoint=https://hunter2pw@a.table.core.windows.net" + sas),
              HasSubstr("has user information"));
  EXPECT_THAT(Error("DefaultEndpointsProtocol=ftp;AccountName=a;AccountKey=" + kKey),
              HasSubstr("DefaultEndpointsProtocol must be http or https"));
  EXPECT_THAT(Error("AccountName=a.evil.example;AccountKey=" + kKey),
              HasSubstr("AccountName is not an account name"));
  EXPECT_THAT(Error("AccountName=a;AccountKey=" + kKey + ";EndpointSuffix=core.windows.net/x"),
              HasSubstr("EndpointSuffix is not a host name suffix"));
  EXPECT_THAT(Error("AccountName=a;AccountKey=" + kKey + ";EndpointSuffix=.core.windows.net"),
              HasSubstr("EndpointSuffix is not a host name suffix"));
}

TEST(ConnectionString, AccountNameMustAgreeWithTheEndpoint) {
  EXPECT_THAT(Error("AccountName=other;AccountKey=" + kKey +
                    ";TableEndpoint=http://127.0.0.1:10002/devstoreaccount1"),
              HasSubstr("AccountName 'other' does not match the account 'devstoreaccount1' that "
                        "TableEndpoint's path names"));
  EXPECT_THAT(
      Error("AccountName=b;AccountKey=" + kKey + ";TableEndpoint=https://a.table.core.windows.net"),
      HasSubstr("AccountName 'b' does not match the account 'a' that TableEndpoint's "
                "host names"));
  // Hosts are case-insensitive; so is the account a host names.
  EXPECT_EQ(
      Parse("AccountName=a;AccountKey=" + kKey + ";TableEndpoint=https://A.TABLE.core.windows.net"),
      "https://A.TABLE.core.windows.net account=a key=" + kKey);
}

// --- Endpoint URLs ------------------------------------------------------------------------

TEST(LocationUrl, SasUrlIsHostStyleOrPathStyle) {
  Result<Endpoint> host_style = ParseLocation("https://a.table.core.windows.net/?" + kSas);
  ASSERT_OK(host_style);
  EXPECT_EQ(host_style->scheme, "https");
  EXPECT_EQ(host_style->host, "a.table.core.windows.net");
  EXPECT_EQ(host_style->port, 443);
  EXPECT_EQ(host_style->base_path, "");
  EXPECT_EQ(host_style->account, "a");
  EXPECT_EQ(host_style->key, "");
  EXPECT_EQ(host_style->sas, kSas);

  EXPECT_EQ(Parse("http://127.0.0.1:10002/devstoreaccount1?" + kSas),
            "http://127.0.0.1:10002/devstoreaccount1 account=devstoreaccount1 sas=" + kSas);
  // A path on any host names the account (partkv serve behind a proxy).
  EXPECT_EQ(Parse("https://tables.example.org/acct-1?" + kSas),
            "https://tables.example.org/acct-1 account=acct-1 sas=" + kSas);
  // The scheme is case-insensitive.
  EXPECT_EQ(Parse("HTTPS://a.table.core.windows.net?" + kSas),
            "https://a.table.core.windows.net account=a sas=" + kSas);
}

TEST(LocationUrl, IpAndLocalhostHostsArePathStyle) {
  Result<Endpoint> v6 = ParseLocation("http://[::1]:10002/devstoreaccount1?" + kSas);
  ASSERT_OK(v6);
  EXPECT_EQ(v6->host, "[::1]");
  EXPECT_EQ(v6->port, 10002);
  EXPECT_EQ(v6->base_path, "/devstoreaccount1");
  EXPECT_EQ(v6->Url(), "http://[::1]:10002/devstoreaccount1");
  EXPECT_EQ(Parse("https://[2001:db8::7]/acct?" + kSas),
            "https://[2001:db8::7]/acct account=acct sas=" + kSas);
  EXPECT_EQ(Parse("http://LocalHost:10002/devstoreaccount1?" + kSas),
            "http://LocalHost:10002/devstoreaccount1 account=devstoreaccount1 sas=" + kSas);
  EXPECT_THAT(Error("http://127.0.0.1:10002/?" + kSas), HasSubstr("names no account"));
  EXPECT_THAT(Error("http://localhost:10002?" + kSas), HasSubstr("names no account"));
  EXPECT_THAT(Error("http://[::1]:10002?" + kSas), HasSubstr("names no account"));
}

TEST(LocationUrl, PortsAreTheUrlsOrTheSchemesDefault) {
  auto port = [](const std::string& url) {
    Result<Endpoint> e = ParseLocation(url);
    return e.ok() ? static_cast<int>(e->port) : -1;
  };
  EXPECT_EQ(port("http://127.0.0.1/acct?" + kSas), 80);
  EXPECT_EQ(port("https://127.0.0.1/acct?" + kSas), 443);
  EXPECT_EQ(port("https://127.0.0.1:/acct?" + kSas), 443);  // an empty port is the default
  EXPECT_EQ(port("http://127.0.0.1:1/acct?" + kSas), 1);
  EXPECT_EQ(port("http://127.0.0.1:65535/acct?" + kSas), 65535);
  EXPECT_EQ(port("https://[::1]:8443/acct?" + kSas), 8443);
  EXPECT_EQ(ParseLocation("http://h:80/a?" + kSas)->Url(), "http://h/a");  // default not shown
  EXPECT_EQ(ParseLocation("https://h:80/a?" + kSas)->Url(), "https://h:80/a");
  for (const char* bad : {":0", ":65536", ":99999999", ":x", ":-1", ":1.5"}) {
    EXPECT_THAT(Error(std::string("http://127.0.0.1") + bad + "/acct?" + kSas),
                HasSubstr("has a port that is not 1 to 65535"))
        << bad;
  }
}

TEST(LocationUrl, TrailingSlashesAreDropped) {
  EXPECT_EQ(Parse("https://a.table.core.windows.net///?" + kSas),
            "https://a.table.core.windows.net account=a sas=" + kSas);
  EXPECT_EQ(Parse("http://127.0.0.1:10002/devstoreaccount1//?" + kSas),
            "http://127.0.0.1:10002/devstoreaccount1 account=devstoreaccount1 sas=" + kSas);
  Result<Endpoint> e = ParseLocation("AccountName=devstoreaccount1;AccountKey=" + kDevKey +
                                     ";TableEndpoint=http://127.0.0.1:10002/devstoreaccount1/");
  ASSERT_OK(e);
  EXPECT_EQ(e->base_path, "/devstoreaccount1");
}

TEST(LocationUrl, UrlWithoutSasIsRefusedNamingWhatIsMissing) {
  EXPECT_THAT(Error("https://a.table.core.windows.net"),
              HasSubstr("no credential: the URL 'https://a.table.core.windows.net' has no SAS "
                        "query"));
  EXPECT_THAT(Error("http://127.0.0.1:10002/devstoreaccount1?"), HasSubstr("has no SAS query"));
  EXPECT_THAT(Error("https://a.table.core.windows.net/?sv=2019-02-02&se=2030"),
              HasSubstr("the URL's query is not a SAS: it has no sig"));
  EXPECT_THAT(Error("https://a.table.core.windows.net/?sv=2019-02-02&sig="),
              HasSubstr("it has no sig"));
}

TEST(LocationUrl, MalformedUrlsAreRefusedWithoutTheirSignature) {
  EXPECT_THAT(Error("http://127.0.0.1:10002/devstoreaccount1/Tables?" + kSas),
              HasSubstr("has more than one path segment"));
  EXPECT_THAT(Error("https://a.table.core.windows.net/mytable?" + kSas),
              HasSubstr("has a path, but its host names the account already"));
  EXPECT_THAT(Error("https://user:hunter2pw@a.table.core.windows.net/?" + kSas),
              HasSubstr("'https://<redacted>@a.table.core.windows.net/?sv=2019-02-02"));
  EXPECT_THAT(Error("http://[::g]:10002/a?" + kSas), HasSubstr("has an invalid IPv6 address"));
  EXPECT_THAT(Error("http://[::1/a?" + kSas), HasSubstr("has an unterminated IPv6 address"));
  EXPECT_THAT(Error("http://[::1]x/a?" + kSas), HasSubstr("has text after its IPv6 address"));
  EXPECT_THAT(Error("http://ho$t/a?" + kSas), HasSubstr("has an invalid host"));
  EXPECT_THAT(Error("http:///a?" + kSas), HasSubstr("has no host"));
  EXPECT_THAT(Error("http://h/a%2Fb?" + kSas), HasSubstr("has a path that is not an account name"));
  EXPECT_THAT(Error("http://h/a#frag?" + kSas), HasSubstr("has a fragment"));
  EXPECT_THAT(Error("http://h/a b?" + kSas), HasSubstr("holds whitespace"));
  // Every one of these shows the URL with its sig hidden.
  EXPECT_THAT(Error("http://127.0.0.1:10002/devstoreaccount1/Tables?" + kSas),
              HasSubstr("&sig=<redacted>'"));
}

TEST(Location, NeitherUrlNorConnectionStringIsRefused) {
  EXPECT_THAT(Error(""), HasSubstr("the location is empty"));
  EXPECT_THAT(Error("  \n"), HasSubstr("the location is empty"));
  EXPECT_THAT(Error("./data"), HasSubstr("neither an http or https URL nor a connection string"));
  EXPECT_THAT(Error(kKey), HasSubstr("neither"));
}

// --- IsRemoteLocation ---------------------------------------------------------------------

TEST(RemoteLocation, UrlsAndConnectionStringsAreRemote) {
  for (const char* remote : {
           "http://127.0.0.1:10002/devstoreaccount1",
           "https://a.table.core.windows.net/?sv=1&sig=x",
           "HTTPS://A.TABLE.CORE.WINDOWS.NET",
           "  https://x",
           "UseDevelopmentStorage=true",
           "usedevelopmentstorage=true",
           " AccountName = a ;AccountKey=x",
           "TableEndpoint=http://h/a;SharedAccessSignature=sig=1",
           "BlobEndpoint=https://b",
           ";;DefaultEndpointsProtocol=https",
           // A misspelt first setting: still a connection string (refused by ParseLocation),
           // never a directory named after the key that follows.
           "AcountName=a;AccountKey=abcd",
           "AccountEndpoint=https://a.documents.azure.com:443/;AccountKey=abcd",
       }) {
    EXPECT_TRUE(IsRemoteLocation(remote)) << remote;
  }
}

TEST(RemoteLocation, DirectoriesAreLocal) {
  for (const char* local : {
           "./data",
           "data",
           "/var/lib/x",
           "C:\\data",
           "C:/data",
           "data=1",
           "./data=1",
           "a=b;c=d",
           "./AccountName=x",  // the way to name such a directory
           "dir;with;semicolons",
           "",
           "   ",
           "http:/x",
           "httpx://x",
           "ftp://host/x",
           "file:///var/lib/x",
           "AccountName",
           "AccountNameX=1",
       }) {
    EXPECT_FALSE(IsRemoteLocation(local)) << local;
  }
}

// --- Redact ----------------------------------------------------------------------------------

TEST(RedactLocation, HidesKeysSignaturesAndUserInformation) {
  EXPECT_EQ(Redact("DefaultEndpointsProtocol=https;AccountName=a;AccountKey=" + kKey +
                   ";EndpointSuffix=core.windows.net"),
            "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=<redacted>;"
            "EndpointSuffix=core.windows.net");
  EXPECT_EQ(Redact("TableEndpoint=https://a.table.core.windows.net;SharedAccessSignature=" + kSas),
            "TableEndpoint=https://a.table.core.windows.net;SharedAccessSignature=<redacted>");
  EXPECT_EQ(Redact("https://a.table.core.windows.net/?sv=2019&sig=" + kSig + "&se=2030"),
            "https://a.table.core.windows.net/?sv=2019&sig=<redacted>&se=2030");
  EXPECT_EQ(Redact("https://a.table.core.windows.net/?sig=" + kSig),
            "https://a.table.core.windows.net/?sig=<redacted>");
  EXPECT_EQ(Redact("https://u:hunter2pw@h/a?x=1"), "https://<redacted>@h/a?x=1");
  // Names in any case, whitespace kept.
  EXPECT_EQ(Redact(" accountkey = " + kKey + " ;x"), " accountkey =<redacted>;x");
  EXPECT_EQ(Redact("http://h/a?SIG=" + kSig), "http://h/a?SIG=<redacted>");
  EXPECT_EQ(Redact("TableEndpoint=http://h/a?sig=" + kSig + ";AccountName=a"),
            "TableEndpoint=http://h/a?sig=<redacted>;AccountName=a");
}

TEST(RedactLocation, LeavesEverythingElseAlone) {
  for (const char* plain : {
           "./data",
           "/var/lib/x",
           "C:\\data",
           "data=1",
           "AccountName=a;EndpointSuffix=x",
           "http://127.0.0.1:10002/devstoreaccount1",
           "https://h/?signature=1&design=2&xsig=3",
           "AccountKey=",
           "UseDevelopmentStorage=true;;",
           "",
       }) {
    EXPECT_EQ(Redact(plain), plain);
  }
}

TEST(RedactLocation, NoSecretSurvivesInAnyAcceptedForm) {
  for (const std::string& location : std::vector<std::string>{
           "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=" + kKey,
           "TableEndpoint=https://a.table.core.windows.net;SharedAccessSignature=" + kSas,
           "https://a.table.core.windows.net/?" + kSas,
           "http://[::1]:10002/devstoreaccount1?" + kSas,
           "UseDevelopmentStorage=true",
       }) {
    ASSERT_OK(ParseLocation(location)) << Redact(location);
    EXPECT_FALSE(ShowsSecret(Redact(location))) << Redact(location);
  }
}

}  // namespace
}  // namespace partkv::remote
