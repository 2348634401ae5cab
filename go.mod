module github.com/sabline/sabline

go 1.26
