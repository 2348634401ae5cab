package eval
