// Weka ARFF tables read into the TabularData the CSV reader makes. Every expected value
// below was worked out by hand from the text (levels sorted by bytes, classes in declared
// order, rows in file order, line numbers counted from 1).
#include <QtTest/QtTest>

#include <string>
#include <vector>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/io/arff.h"
#include "base/io/input_columns.h"
#include "base/io/tabular_csv.h"

using namespace lcs;
using Strings = std::vector<std::string>;
using Values = std::vector<double>;
using Labels = std::vector<int64_t>;

class ArffTest : public QObject {
    Q_OBJECT

    static TabularData parse(const std::string& text, const std::string& classAttribute = "", size_t maxValues = 1000,
                             MissingValues missing = MissingValues::Refuse)
    {
        return parseArff(text, "t.arff", classAttribute, maxValues, missing);
    }

private Q_SLOTS:
    // Weka's missing value `?` in features (labor.arff has one in 56 of 57 rows). Imputed:
    // a numeric attribute gains its 0/1 "missing" feature (the value NaN until the fill is
    // fitted), a nominal one the level "(missing)" beside its declared values; a `?` class
    // is still an unlabelled row. Dropped: rows with a missing feature are left out.
    void missingFeaturesAreImputedOrDropped()
    {
        const std::string text = "@relation r\n@attribute x numeric\n@attribute k {u, v}\n@attribute c {a, b}\n@data\n"
                                 "1,u,a\n?,v,b\n3,?,a\n?,?,?\n5,u,b\n";
        const auto t = parse(text, "", 1000, MissingValues::Impute);
        QCOMPARE(t.featureNames, (Strings{"x", "x missing", "k=(missing)", "k=u", "k=v"}));
        QCOMPARE(t.missingCells, int64_t{4});
        QCOMPARE(t.missingRows, int64_t{3});
        QCOMPARE(t.labels, (Labels{0, 1, 0, 1}));
        const auto nan = std::numeric_limits<double>::quiet_NaN();
        const Values labelled{1, 0, 0, 1, 0, nan, 1, 0, 0, 1, 3, 0, 1, 0, 0, 5, 0, 0, 1, 0};
        QCOMPARE(t.labelled.values.size(), labelled.size());
        for (size_t i = 0; i < labelled.size(); ++i)
            QVERIFY2(std::isnan(labelled[i]) ? std::isnan(t.labelled.values[i]) : t.labelled.values[i] == labelled[i],
                     qPrintable(QString::number(i)));
        QCOMPARE(t.unlabelled.values.size(), size_t{5});
        QVERIFY(std::isnan(t.unlabelled.values[0]));
        QCOMPARE(Values(t.unlabelled.values.begin() + 1, t.unlabelled.values.end()), (Values{1, 1, 0, 0}));
        const auto dropped = parse(text, "", 1000, MissingValues::Drop);
        QCOMPARE(dropped.featureNames, (Strings{"x", "k=u", "k=v"}));
        QCOMPARE(dropped.labelled.values, (Values{1, 1, 0, 5, 1, 0}));
        QCOMPARE(dropped.labels, (Labels{0, 1}));
        try {
            parse("@relation r\n@attribute x numeric\n@attribute y numeric\n@attribute c {a, b}\n@data\n1,?,a\n2,?,b\n",
                  "", 1000, MissingValues::Impute);
            QFAIL("an attribute missing in every row was imputed");
        } catch (const InputError& e) {
            QCOMPARE(QString(e.what()), QString("t.arff attribute \"y\": missing (?) in every one of its 2 rows (100%); "
                                                "there is nothing to impute from: remove the attribute"));
        }
    }

    // Comments, a quoted name with a blank, quoted values, a `?` class (unlabelled), a
    // trailing comment; nominal levels sorted, the class in declared order.
    void numbersQuotesAndComments()
    {
        const auto t = parse("% a comment\n@RELATION t\n\n@attribute size NUMERIC\n"
                             "@attribute 'colour name' {red, 'dark blue', green}\n@attribute kind {b, a}\n@data\n"
                             "1,red,b\n2,'dark blue',a\n3, green ,?\n4,red,a % trailing comment\n");
        QCOMPARE(t.columns.size(), size_t{2});
        QVERIFY(!t.columns[0].categorical());
        QCOMPARE(t.columns[1].name, std::string("colour name"));
        QCOMPARE(t.columns[1].levels, (Strings{"dark blue", "green", "red"}));
        QCOMPARE(t.featureNames, (Strings{"size", "colour name=dark blue", "colour name=green", "colour name=red"}));
        QCOMPARE(t.classNames, (Strings{"b", "a"}));
        QCOMPARE(t.labelName, std::string("kind"));
        QCOMPARE(t.labelled.shape, (std::vector<int64_t>{3, 4}));
        QCOMPARE(t.labelled.values, (Values{1, 0, 0, 1, 2, 1, 0, 0, 4, 0, 0, 1}));
        QCOMPARE(t.labels, (Labels{0, 1, 1}));
        QCOMPARE(t.unlabelled.shape, (std::vector<int64_t>{1, 4}));
        QCOMPARE(t.unlabelled.values, (Values{3, 0, 1, 0}));
        QCOMPARE(t.source, std::string("t.arff"));
    }

    // A class named in the middle; with the default (the last attribute) the same text
    // stops at the `?` that is now a feature.
    void classByName()
    {
        const std::string text = "@relation r\n@attribute y {no, yes}\n@attribute x real\n@attribute note {p, q}\n"
                                 "@data\nyes,1.5,p\nno,-2,q\n?,0,p\n";
        const auto t = parse(text, "y");
        QCOMPARE(t.featureNames, (Strings{"x", "note=p", "note=q"}));
        QCOMPARE(t.classNames, (Strings{"no", "yes"}));
        QCOMPARE(t.labelled.values, (Values{1.5, 1, 0, -2, 0, 1}));
        QCOMPARE(t.labels, (Labels{1, 0}));
        QCOMPARE(t.unlabelled.values, (Values{0, 1, 0}));
        try {
            parse(text);
            QFAIL("a ? feature was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).startsWith("t.arff line 8 attribute \"y\": a missing value (?), refused by "
                                                  "--missing refuse"),
                     e.what());
        }
    }

    void quotingEscapesAndLineEndings()
    {
        const auto q = parse("@relation q\n@attribute w {'it\\'s', \"a,b\", 'x%y'}\n@attribute c {k, l}\n@data\n"
                             "'it\\'s',k\n\"a,b\",l\n'x%y',?\n");
        QCOMPARE(q.columns[0].levels, (Strings{"a,b", "it's", "x%y"}));
        QCOMPARE(q.labelled.values, (Values{0, 1, 0, 1, 0, 0}));
        QCOMPARE(q.labels, (Labels{0, 1}));
        QCOMPARE(q.unlabelled.values, (Values{0, 0, 1}));
        const auto crlf = parse("\xEF\xBB\xBF@Relation r\r\n@ATTRIBUTE\tv\tInteger\r\n@Attribute c\t{A,B}\r\n@DATA\r\n"
                                "1,A\r\n2,B\r\n3,?\r\n");
        QCOMPARE(crlf.featureNames, (Strings{"v"}));
        QCOMPARE(crlf.classNames, (Strings{"A", "B"}));
        QCOMPARE(crlf.labelled.values, (Values{1, 2}));
        QCOMPARE(crlf.unlabelled.values, (Values{3}));
        // '?' quoted is a value; numbers may be quoted; comment and blank lines among rows.
        const auto marks = parse("@relation r\n@attribute x numeric\n@attribute c {a, '?'}\n@data\n\n% rows\n'1',a%x\n"
                                 "\"2\",'?'\n3,?\n%\n");
        QCOMPARE(marks.classNames, (Strings{"a", "?"}));
        QCOMPARE(marks.labels, (Labels{0, 1}));
        QCOMPARE(marks.labelled.values, (Values{1, 2}));
        QCOMPARE(marks.unlabelled.values, (Values{3}));
    }

    // Declared but unused levels and classes are kept (decide accepts such a level later);
    // integer-looking class values keep their declared order (Weka's numbering).
    void declaredValuesAreKept()
    {
        const auto t = parse("@relation u\n@attribute f {z, y, x}\n@attribute c {one, two, three}\n@data\n"
                             "z,one\ny,two\nz,?\n");
        QCOMPARE(t.featureNames, (Strings{"f=x", "f=y", "f=z"}));
        QCOMPARE(t.classNames, (Strings{"one", "two", "three"}));
        QCOMPARE(t.labelled.values, (Values{0, 0, 1, 0, 1, 0}));
        QCOMPARE(t.labels, (Labels{0, 1}));
        std::vector<double> out;
        appendEncodedRow(t.columns, {"x"}, "new line 2", out);
        QCOMPARE(out, (Values{1, 0, 0}));
        const auto numbers = parse("@relation r\n@attribute x numeric\n@attribute c {10, 2}\n@data\n1,2\n2,10\n3,?\n");
        QCOMPARE(numbers.classNames, (Strings{"10", "2"}));
        QCOMPARE(numbers.labels, (Labels{1, 0}));
        // An attribute may be named `date`: a name, not the type.
        const auto date = parse("@relation r\n@attribute date {may, june}\n@attribute c {a,b}\n@data\nmay,a\njune,b\n");
        QCOMPARE(date.featureNames, (Strings{"date=june", "date=may"}));
        QCOMPARE(date.labelled.values, (Values{0, 1, 1, 0}));
    }

    // Weka's example files label every row: then there is no unlabelled row, and the
    // experiment trains q on the training rows' inputs.
    void everyRowLabelled()
    {
        const auto t = parse("@relation weather.symbolic\n@attribute outlook {sunny, overcast, rainy}\n"
                             "@attribute windy {TRUE, FALSE}\n@attribute play {yes, no}\n@data\n"
                             "sunny,FALSE,no\novercast,TRUE,yes\nrainy,FALSE,yes\n");
        QCOMPARE(t.featureNames, (Strings{"outlook=overcast", "outlook=rainy", "outlook=sunny", "windy=FALSE",
                                          "windy=TRUE"}));
        QCOMPARE(t.classNames, (Strings{"yes", "no"}));
        QCOMPARE(t.labels, (Labels{1, 0, 0}));
        QCOMPARE(t.labelled.values, (Values{0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0}));
        QCOMPARE(t.unlabelled.shape, (std::vector<int64_t>{0, 5}));
    }

    // readTable picks the reader by the name's ending, in any case, and each format's
    // default class column.
    void readTableChoosesByName()
    {
        QTemporaryDir dir;
        const std::string arff = dir.filePath("T.ARFF").toStdString();
        writeFileAtomically(arff, "@relation r\n@attribute x numeric\n@attribute label {a, b}\n@attribute k {u, v}\n"
                                  "@data\n1,a,u\n2,b,v\n");
        QCOMPARE(readTable(arff, "", 1000, MissingValues::Refuse).labelName, std::string("k"));
        QCOMPARE(readTable(arff, "label", 1000, MissingValues::Refuse).labelName, std::string("label"));
        const std::string csv = dir.filePath("t.csv").toStdString();
        writeFileAtomically(csv, "x,label,k\n1,a,u\n2,b,v\n");
        QCOMPARE(readTable(csv, "", 1000, MissingValues::Refuse).labelName, std::string("label"));
        QCOMPARE(readTable(csv, "", 1000, MissingValues::Refuse).featureNames, (Strings{"x", "k=u", "k=v"}));
    }

    void badFilesNameTheProblem_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("classAttribute");
        QTest::addColumn<int>("maxValues");
        QTest::addColumn<QString>("message");
        const QString h = "@relation r\n@attribute x numeric\n@attribute c {a, b}\n@data\n";
        const auto row = [](const char* name, const QString& text, const QString& message, const QString& cls = {},
                            int maxValues = 1000) {
            QTest::newRow(name) << text << cls << maxValues << message;
        };
        row("empty", "", "t.arff: empty; expected an ARFF header");
        row("only comments", "% x\n\n", "t.arff: empty");
        row("no @data", "@relation r\n@attribute x numeric\n", "t.arff: no @data line after the header");
        row("attribute first", "@attribute x numeric\n", "t.arff line 1: @attribute before @relation");
        row("data first", "@relation r\n1,2\n",
            "t.arff line 2: \"1,2\" where the header expects @relation, @attribute or @data");
        row("relation twice", "@relation r\n@relation s\n", "t.arff line 2: a second @relation");
        row("no type", "@relation r\n@attribute x\n", "t.arff line 2 attribute \"x\": no type");
        row("text after type", "@relation r\n@attribute x numeric junk\n", "attribute \"x\": \"junk\" after its type");
        row("no attributes", "@relation r\n@data\n", "t.arff line 2: @data, but no attribute is declared");
        row("string", "@relation r\n@attribute Text string\n@attribute c {a,b}\n@data\n",
            "t.arff line 2 attribute \"Text\": type \"string\" is not supported");
        row("date", "@relation r\n@attribute when DATE \"yyyy-MM-dd\"\n@attribute c {a,b}\n@data\n",
            "attribute \"when\": type \"DATE\" is not supported");
        row("relational", "@relation r\n@attribute bag relational\n",
            "attribute \"bag\": type \"relational\" is not supported");
        row("unknown type", "@relation r\n@attribute x numberic\n", "attribute \"x\": \"numberic\" is not a type");
        row("name twice", "@relation r\n@attribute x numeric\n@attribute x real\n",
            "t.arff line 3 attribute \"x\": declared twice (first on line 2)");
        row("value twice", "@relation r\n@attribute c {a, b, a}\n", "attribute \"c\": declares the value \"a\" twice");
        row("empty set", "@relation r\n@attribute c {}\n", "attribute \"c\": declares no values ({})");
        row("set not closed", "@relation r\n@attribute c {a, b\n", "its set of values is not closed with }");
        row("blank-separated set", "@relation r\n@attribute c {a b}\n",
            "expected a comma after the value \"a\", found \"b}\"");
        row("unclosed quote", "@relation r\n@attribute c {'a, b}\n",
            "attribute \"c\": a value opened with ' is not closed on its line");
        row("? declared", "@relation r\n@attribute c {a, ?}\n", "? stands for a missing value; quote it ('?')");
        row("long name", "@relation r\n@attribute " + QString(201, 'n') + " numeric\n",
            "t.arff line 2: a name or value of more than 200 characters");
        row("only the class", "@relation r\n@attribute c {a,b}\n@data\n",
            "t.arff: declares no feature attribute beside the class \"c\"");
        row("numeric class", "@relation r\n@attribute x numeric\n@attribute y numeric\n@data\n",
            "t.arff line 3 attribute \"y\": the class is numeric (the last attribute is the class unless another is "
            "named); regression is not supported");
        row("named numeric class", h, "t.arff line 2 attribute \"x\": the class is numeric; regression", "x");
        row("class not found", h, "t.arff: no attribute named \"C\"; did you mean \"c\" (its attributes: x, c)", "C");
        row("class of 1 value", "@relation r\n@attribute x numeric\n@attribute c {a}\n@data\n",
            "t.arff line 3 attribute \"c\": the class declares 1 value; at least 2 classes are needed");
        row("sparse row", h + "{0 1, 1 a}\n", "t.arff line 5: a sparse row ({index value, ...})");
        row("instance weight", h + "1,a,{2}\n",
            "t.arff line 5: a { after 2 values (an instance weight {w}, or a sparse row)");
        row("too few values", h + "1\n", "t.arff line 5: 1 values, the header declares 2 attributes");
        row("too many values", h + "1,a,b\n", "t.arff line 5: more than 2 values; the header declares 2 attributes");
        row("empty value", h + ",a\n", "t.arff line 5 attribute \"x\": an empty value (? marks a missing one)");
        row("trailing comma", h + "1,\n", "t.arff line 5 attribute \"c\": an empty value");
        row("blank inside value", h + "1 2,a\n",
            "t.arff line 5 attribute \"x\": expected a comma after its value, found \"2,a\"");
        row("stray brace", h + "1,}\n", "t.arff line 5 attribute \"c\": \"}\" is not a value");
        row("undeclared value", h + "1,c\n",
            "t.arff line 5 attribute \"c\": \"c\" is not one of its declared values (a, b)");
        row("undeclared feature", "@relation r\n@attribute f {p, q}\n@attribute c {a,b}\n@data\nr,a\n",
            "t.arff line 5 attribute \"f\": \"r\" is not one of its declared values (p, q)");
        row("not a number", h + "x1,a\n", "t.arff line 5 attribute \"x\": \"x1\" is not a finite number (at most 1e30)");
        row("huge", h + "1e31,a\n", "\"1e31\" is not a finite number (at most 1e30)");
        row("nan", h + "nan,a\n", "\"nan\" is not a finite number");
        row("missing feature", h + "?,a\n",
            "t.arff line 5 attribute \"x\": a missing value (?), refused by --missing refuse");
        row("no rows", h, "t.arff: attribute \"c\" holds 0 class(es) among its labelled rows; at least 2 are needed");
        row("one class", h + "1,a\n2,a\n3,?\n", "holds 1 class(es) among its labelled rows");
        row("cells past the cap", h + "1,a\n2,b\n3,?\n", "t.arff: more than 5 numbers", {}, 5);
        row("one-hot past the cap", "@relation r\n@attribute f {p,q,r,s}\n@attribute c {a,b}\n@data\np,a\nq,b\n",
            "t.arff: its categories one-hot encoded make 4 features, more than 7 numbers in all", {}, 7);
    }
    void badFilesNameTheProblem()
    {
        QFETCH(QString, text);
        QFETCH(QString, classAttribute);
        QFETCH(int, maxValues);
        QFETCH(QString, message);
        try {
            parse(text.toStdString(), classAttribute.toStdString(), static_cast<size_t>(maxValues));
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromStdString(e.what()).contains(message), e.what());
        }
    }

    // Text must be UTF-8 where it reaches the results (names, values, rows); comment
    // lines never do, and old files' comments are often Latin-1.
    void textIsUtf8WhereItIsUsed()
    {
        const auto t = parse("% Autor: Jos\xe9 M\xfcller\n@relation r\n@attribute x numeric\n@attribute c {a, b}\n"
                             "@data\n1,a\n2,b\n");
        QCOMPARE(t.classNames, (Strings{"a", "b"}));
        for (const auto& [text, message] :
             std::vector<std::pair<std::string, QString>>{
                 {"@relation r\n@attribute x numeric\n@attribute c {caf\xe9, b}\n@data\n1,b\n",
                  "t.arff line 3: byte 18 of the line is not UTF-8 text"},
                 {"@relation r\n@attribute x numeric\n@attribute c {a, b}\n@data\n1,a\n2,b % caf\xe9\n",
                  "t.arff line 6: byte 10 of the line is not UTF-8 text"}}) {
            try {
                parse(text);
                QFAIL("accepted");
            } catch (const InputError& e) {
                QVERIFY2(QString::fromStdString(e.what()).contains(message), e.what());
            }
        }
        // A class name over 100 characters is refused whole, never cut.
        try {
            parse("@relation r\n@attribute x numeric\n@attribute c {" + std::string(101, 'k') + ", b}\n@data\n");
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromStdString(e.what()).contains("has 101 characters; at most 100"), e.what());
        }
    }

    // Caps that need large texts: a value's length, the values of one attribute, classes.
    void capsAreChecked()
    {
        QString values;
        for (int i = 0; i <= 1000; ++i)
            values += (i ? ", v" : "v") + QString::number(i);
        QString classes;
        for (int i = 0; i <= 100; ++i)
            classes += (i ? ", k" : "k") + QString::number(i);
        const std::vector<std::pair<QString, QString>> cases{
            {"@relation r\n@attribute c {" + QString(201, 'v') + "}\n", "a name or value of more than 200 characters"},
            {"@relation r\n@attribute c {" + values + "}\n", "more than 1000 values"},
            {"@relation r\n@attribute x numeric\n@attribute c {" + classes + "}\n@data\n",
             "the class declares 101 values; at most 100 classes"}};
        for (const auto& [text, message] : cases) {
            try {
                parse(text.toStdString());
                QFAIL("accepted");
            } catch (const InputError& e) {
                QVERIFY2(QString::fromStdString(e.what()).contains(message), e.what());
            }
        }
    }
};

QTEST_GUILESS_MAIN(ArffTest)
#include "tst_arff.moc"
